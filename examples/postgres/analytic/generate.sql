-- A TPC-H-shaped data set generated in SQL for verdict's analytic workload (not TPC-H:
-- no dbgen, no TPC rules). psql variables: sf, the scale factor (default 0.1; 1 is about
-- 1 GB), and seed (default 0.42). Deterministic for a given sf and seed.
\if :{?sf}
\else
\set sf 0.1
\endif
\if :{?seed}
\else
\set seed 0.42
\endif
\set ON_ERROR_STOP on
SET client_min_messages = warning;
SELECT setseed(:seed);

CREATE TABLE region (r_regionkey int PRIMARY KEY, r_name text NOT NULL, r_comment text);
CREATE TABLE nation (n_nationkey int PRIMARY KEY, n_name text NOT NULL,
                     n_regionkey int NOT NULL REFERENCES region, n_comment text);
CREATE TABLE part (p_partkey int PRIMARY KEY, p_name text, p_mfgr text, p_brand text,
                   p_type text, p_size int, p_container text, p_retailprice numeric(12,2),
                   p_comment text);
CREATE TABLE supplier (s_suppkey int PRIMARY KEY, s_name text, s_address text,
                       s_nationkey int REFERENCES nation, s_phone text,
                       s_acctbal numeric(12,2), s_comment text);
CREATE TABLE partsupp (ps_partkey int REFERENCES part, ps_suppkey int REFERENCES supplier,
                       ps_availqty int, ps_supplycost numeric(12,2), ps_comment text,
                       PRIMARY KEY (ps_partkey, ps_suppkey));
CREATE TABLE customer (c_custkey int PRIMARY KEY, c_name text, c_address text,
                       c_nationkey int REFERENCES nation, c_phone text,
                       c_acctbal numeric(12,2), c_mktsegment text, c_comment text);
CREATE TABLE orders (o_orderkey int PRIMARY KEY, o_custkey int REFERENCES customer,
                     o_orderstatus char(1), o_totalprice numeric(12,2), o_orderdate date,
                     o_orderpriority text, o_clerk text, o_shippriority int, o_comment text);
CREATE TABLE lineitem (l_orderkey int REFERENCES orders, l_partkey int, l_suppkey int,
                       l_linenumber int, l_quantity numeric(12,2),
                       l_extendedprice numeric(12,2), l_discount numeric(12,2),
                       l_tax numeric(12,2), l_returnflag char(1), l_linestatus char(1),
                       l_shipdate date, l_commitdate date, l_receiptdate date,
                       l_shipinstruct text, l_shipmode text, l_comment text,
                       PRIMARY KEY (l_orderkey, l_linenumber));

INSERT INTO region
SELECT i - 1, (ARRAY['AFRICA','AMERICA','ASIA','EUROPE','MIDDLE EAST'])[i], 'region ' || i
FROM generate_series(1, 5) AS i;

INSERT INTO nation
SELECT i - 1,
       (ARRAY['ALGERIA','ARGENTINA','BRAZIL','CANADA','EGYPT','ETHIOPIA','FRANCE','GERMANY',
              'INDIA','INDONESIA','IRAN','IRAQ','JAPAN','JORDAN','KENYA','MOROCCO',
              'MOZAMBIQUE','PERU','CHINA','ROMANIA','SAUDI ARABIA','VIETNAM','RUSSIA',
              'UNITED KINGDOM','UNITED STATES'])[i],
       (ARRAY[0,1,1,1,4,0,3,3,2,2,4,4,2,4,0,0,0,1,2,3,4,2,3,3,1])[i],
       'nation ' || i
FROM generate_series(1, 25) AS i;

INSERT INTO part
SELECT i, 'part ' || md5(i::text),
       'Manufacturer#' || m,
       'Brand#' || m || (1 + floor(random() * 5))::int,
       (ARRAY['STANDARD','SMALL','MEDIUM','LARGE','ECONOMY','PROMO'])[1 + floor(random() * 6)::int]
         || ' ' || (ARRAY['ANODIZED','BURNISHED','PLATED','POLISHED','BRUSHED'])[1 + floor(random() * 5)::int]
         || ' ' || (ARRAY['TIN','NICKEL','BRASS','STEEL','COPPER'])[1 + floor(random() * 5)::int],
       1 + floor(random() * 50)::int,
       (ARRAY['SM','LG','MED','JUMBO','WRAP'])[1 + floor(random() * 5)::int] || ' '
         || (ARRAY['CASE','BOX','BAG','JAR','PKG','PACK','CAN','DRUM'])[1 + floor(random() * 8)::int],
       round((900 + (i % 1000) + random() * 100)::numeric, 2),
       'comment ' || i
FROM (SELECT i, 1 + floor(random() * 5)::int AS m
      FROM generate_series(1, greatest(1, (200000 * :sf)::int)) AS i) AS p;

INSERT INTO supplier
SELECT i, 'Supplier#' || lpad(i::text, 9, '0'), md5(i::text), floor(random() * 25)::int,
       '1' || (10 + floor(random() * 90))::int || '-' || (100 + floor(random() * 900))::int,
       round((random() * 10999 - 999)::numeric, 2), 'supplier comment ' || i
FROM generate_series(1, greatest(1, (10000 * :sf)::int)) AS i;

INSERT INTO partsupp
SELECT p.p_partkey, 1 + ((p.p_partkey + j * greatest(1, (10000 * :sf)::int / 4))
                         % greatest(1, (10000 * :sf)::int)),
       1 + floor(random() * 9999)::int, round((1 + random() * 999)::numeric, 2),
       'partsupp comment'
FROM part AS p, generate_series(0, 3) AS j
ON CONFLICT DO NOTHING;

INSERT INTO customer
SELECT i, 'Customer#' || lpad(i::text, 9, '0'), md5((i * 7)::text), floor(random() * 25)::int,
       '1' || (10 + floor(random() * 90))::int || '-' || (100 + floor(random() * 900))::int,
       round((random() * 10999 - 999)::numeric, 2),
       (ARRAY['AUTOMOBILE','BUILDING','FURNITURE','MACHINERY','HOUSEHOLD'])[1 + floor(random() * 5)::int],
       'customer comment ' || i
FROM generate_series(1, greatest(1, (150000 * :sf)::int)) AS i;

INSERT INTO orders
SELECT i, 1 + floor(random() * greatest(1, (150000 * :sf)::int))::int, 'O', 0,
       date '1992-01-01' + floor(random() * 2405)::int,
       (ARRAY['1-URGENT','2-HIGH','3-MEDIUM','4-NOT SPECIFIED','5-LOW'])[1 + floor(random() * 5)::int],
       'Clerk#' || lpad((1 + floor(random() * 1000))::int::text, 9, '0'), 0,
       'order comment ' || i
FROM generate_series(1, greatest(1, (1500000 * :sf)::int)) AS i;

INSERT INTO lineitem
SELECT o.o_orderkey, l.partkey,
       1 + ((l.partkey + (o.o_orderkey % 4) * greatest(1, (10000 * :sf)::int / 4))
            % greatest(1, (10000 * :sf)::int)),
       l.n, l.quantity, round(l.quantity * (900 + (l.partkey % 1000) + 50)::numeric, 2),
       round((floor(random() * 11) / 100)::numeric, 2),
       round((floor(random() * 9) / 100)::numeric, 2),
       CASE WHEN o.o_orderdate + l.ship > date '1995-06-17'
            THEN 'N' ELSE (ARRAY['R','A'])[1 + floor(random() * 2)::int] END,
       CASE WHEN o.o_orderdate + l.ship > date '1995-06-17' THEN 'O' ELSE 'F' END,
       o.o_orderdate + l.ship, o.o_orderdate + 30 + floor(random() * 61)::int,
       o.o_orderdate + l.ship + 1 + floor(random() * 30)::int,
       (ARRAY['DELIVER IN PERSON','COLLECT COD','NONE','TAKE BACK RETURN'])[1 + floor(random() * 4)::int],
       (ARRAY['REG AIR','AIR','RAIL','SHIP','TRUCK','MAIL','FOB'])[1 + floor(random() * 7)::int],
       'lineitem comment'
FROM orders AS o,
     LATERAL (SELECT n, 1 + floor(random() * greatest(1, (200000 * :sf)::int))::int AS partkey,
                     (1 + floor(random() * 50))::numeric AS quantity,
                     1 + floor(random() * 121)::int AS ship
              FROM generate_series(1, 1 + (o.o_orderkey * 7 + 3) % 7) AS n) AS l;

UPDATE orders AS o SET o_totalprice = t.total,
       o_orderstatus = CASE WHEN t.open = 0 THEN 'F' WHEN t.open = t.lines THEN 'O' ELSE 'P' END
FROM (SELECT l_orderkey, sum(l_extendedprice * (1 + l_tax) * (1 - l_discount)) AS total,
             count(*) FILTER (WHERE l_linestatus = 'O') AS open, count(*) AS lines
      FROM lineitem GROUP BY l_orderkey) AS t
WHERE o.o_orderkey = t.l_orderkey;

CREATE INDEX ON lineitem (l_shipdate);
CREATE INDEX ON orders (o_orderdate);
CREATE INDEX ON orders (o_custkey);
CREATE INDEX ON customer (c_nationkey);
CREATE INDEX ON supplier (s_nationkey);
-- Statistics and the visibility map once, here: every run then plans and scans alike.
-- Each variant's template is generated by its own build, so the statistics must not
-- depend on chance: ANALYZE samples 300 x the statistics target rows at random, and
-- with a target of 10000 its sample is every row of every table up to sf 0.5 (lineitem's
-- 3 M rows), so every template gets the same statistics and the same plans. (With the
-- default target, the three builds of the cold-path lab planned q5 three ways.) Above
-- sf 0.5 the sample is a random part again: compare plans (EXPLAIN) before trusting a
-- per-query difference.
SET default_statistics_target = 10000;
VACUUM (ANALYZE, FREEZE);
