-- dpobj.unit_row_key(), the per-row keys of the privacy-unit bounding, served
-- from a buffer of CSPRNG bytes: across several refills (512 keys each) every
-- key is fresh — no repeats, both signs, every one of the 64 bits both set and
-- clear in some key.  A buffer that handed a byte out twice or failed to
-- refill would repeat keys or freeze bits.
WITH k AS (SELECT dpobj.unit_row_key() AS key FROM generate_series(1, 3000))
SELECT count(*) AS keys, count(DISTINCT key) AS distinct_keys,
       count(*) FILTER (WHERE key < 0) > 0 AND count(*) FILTER (WHERE key > 0) > 0 AS both_signs,
       (SELECT bool_and(v) FROM (SELECT bit_or((key >> b) & 1) = 1 AND bit_and((key >> b) & 1) = 0 AS v
                                   FROM k, generate_series(0, 63) b GROUP BY b) x) AS every_bit_varies
  FROM k;
