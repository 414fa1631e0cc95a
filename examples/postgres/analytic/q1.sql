-- Q1-style: a pricing summary of shipped lines, grouped by return flag and status.
SELECT l_returnflag, l_linestatus, sum(l_quantity) AS qty, sum(l_extendedprice) AS base,
       sum(l_extendedprice * (1 - l_discount)) AS discounted,
       sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS charged,
       avg(l_quantity) AS avg_qty, avg(l_discount) AS avg_disc, count(*) AS lines
FROM lineitem
WHERE l_shipdate <= date '1998-12-01' - interval '90 days'
GROUP BY l_returnflag, l_linestatus
ORDER BY l_returnflag, l_linestatus;
