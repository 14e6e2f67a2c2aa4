# gnuplot script: docs/figure1*.png from summary*.dat (run.sh sets outfile, dfile, fset,
# np_op_train/np_op_test/np_lr_train/np_lr_test = the eps -> infinity references)
# columns: mechanism epsilon ok_runs runs train_mean train_std test_mean test_std sec_mean sec_max
set terminal pngcairo size 1200,500 font ",10"
set output outfile
set datafile separator " "
set logscale x
set xlabel "epsilon"
set ylabel "0/1 accuracy (mean +- std over runs)"
set key bottom right
set grid
set multiplot layout 1,2
set title sprintf("Adult balanced (n = 15682), %s, delta = 1/n^2: training subset", fset)
plot for [m in "opdisc rspm logistic noisysgd"] \
     sprintf("< grep '^%s ' %s", m, dfile) using 2:5:6 with yerrorlines title m, \
     np_op_train with lines dashtype 2 lc rgb "dark-violet" title "OPDisc grid optimum (eps = inf)", \
     np_lr_train with lines dashtype 2 lc rgb "steelblue" title "non-private LR"
set title "adult.test"
plot for [m in "opdisc rspm logistic noisysgd"] \
     sprintf("< grep '^%s ' %s", m, dfile) using 2:7:8 with yerrorlines title m, \
     np_op_test with lines dashtype 2 lc rgb "dark-violet" title "OPDisc grid optimum (eps = inf)", \
     np_lr_test with lines dashtype 2 lc rgb "steelblue" title "non-private LR"
unset multiplot
