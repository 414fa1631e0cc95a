-- Q14-style: the share of one month's revenue that came from promoted parts.
SELECT 100.00 * sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_extendedprice * (1 - l_discount)
                         ELSE 0 END)
       / nullif(sum(l_extendedprice * (1 - l_discount)), 0) AS promo_revenue
FROM lineitem JOIN part ON l_partkey = p_partkey
WHERE l_shipdate >= date '1995-09-01' AND l_shipdate < date '1995-10-01';
