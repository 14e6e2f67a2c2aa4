#!/usr/bin/env bash
# bench/jobs/run.sh — queue fairness: one role submits N jobs (committed at once), then
# another role submits 1; prints how long the second role's job waited to start and how
# long the flood took.  Needs PGHOST/PGPORT/PGUSER (a superuser) and a server with dpobj
# preloaded.  Env: DPOBJ_FLOOD (40), DPOBJ_ROUNDS (3).  docs/SCALING.md, "Jobs and concurrent runs".
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../tests/jobs/lib.sh"
N="${DPOBJ_FLOOD:-40}"
R="${DPOBJ_ROUNDS:-3}"
DB=dpobj_bench_jobs
A=dpobj_bench_flood
B=dpobj_bench_other
t_role $A && t_role $B || exit 1
t_fresh_db "$DB" || exit 1
t_tables "$DB" $A >/dev/null || exit 1
t_psql -d "$DB" -c "SELECT 1 FROM dpobj.grant_budget('pts', '$A', 1000, 0.5)" \
    -c "SELECT 1 FROM dpobj.grant_budget('pts', '$B', 20, 0.01)" >/dev/null || exit 1
# (a role may queue N jobs here; the default dpobj.max_jobs_per_role would refuse more)
t_psql -d postgres -c "ALTER DATABASE $DB SET dpobj.max_jobs_per_role = 0" >/dev/null 2>&1
echo "# max_jobs=$(t_psql -d "$DB" -c "SHOW dpobj.max_jobs"), flood of $N jobs, $R rounds"
for ((r = 1; r <= R; r++)); do
    ids=$( { echo "SET ROLE $A;"; echo "BEGIN;"; for ((i = 0; i < N; i++)); do echo "$EASY_SUBMIT;"; done; echo "COMMIT;"; } |
           t_psql -d "$DB" | tr '\n' ' ')
    read -r -a aid <<<"$ids"
    jb=$(t_psql -d "$DB" -c "SET ROLE $B" -c "$EASY_SUBMIT")
    t_wait_state "$DB" "$jb" 'succeeded|failed' 600 >/dev/null
    t_wait_state "$DB" "${aid[$((N - 1))]}" 'succeeded|failed' 600 >/dev/null
    t_psql -d "$DB" -c "SELECT format('round %s: other role waited %s s to start; flood done in %s s',
                                      $r,
                                      round(extract(epoch FROM b.started_at - b.submitted_at)::numeric, 2),
                                      round(extract(epoch FROM max(a.finished_at) - min(a.submitted_at))::numeric, 1))
                          FROM dpobj.job_queue b, dpobj.job_queue a
                         WHERE b.id = $jb AND a.id = ANY (ARRAY[$(tr ' ' ',' <<<"${ids% }")])
                         GROUP BY b.started_at, b.submitted_at"
done
t_psql -d postgres -c "DROP DATABASE $DB" >/dev/null
