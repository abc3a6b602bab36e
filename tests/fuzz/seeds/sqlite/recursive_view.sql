CREATE TABLE rocpd_metadata(tag TEXT, value TEXT);
CREATE VIEW kernels AS WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT n + 1 FROM r) SELECT 'k' || n AS name, n AS start, n + 1 AS end FROM r;
