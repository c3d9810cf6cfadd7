-- Foreign-key actions through partitions, inheritance children and upserts
-- (issue 24, trial-pg3 findings 3, 10 (g4) and 13): a write of a partition
-- runs the actions of keys referencing its partitioned parent, a write of a
-- parent those of keys referencing its partitions and children, and ON
-- CONFLICT DO UPDATE is an UPDATE for the actions.
CREATE TABLE owners (id bigint NOT NULL, region int NOT NULL, PRIMARY KEY (id, region)) PARTITION BY LIST (region);
CREATE TABLE owners_1 PARTITION OF owners FOR VALUES IN (1);
CREATE TABLE owners_2 (id bigint NOT NULL, region int NOT NULL);
ALTER TABLE owners ATTACH PARTITION owners_2 FOR VALUES IN (2);
CREATE TABLE hosts (id bigint NOT NULL, region int NOT NULL, PRIMARY KEY (id, region)) PARTITION BY LIST (region);
CREATE TABLE hosts_1 PARTITION OF hosts FOR VALUES IN (1, 2);
CREATE TABLE base (id bigint PRIMARY KEY);
CREATE TABLE base_child (note text) INHERITS (base);
ALTER TABLE base_child ADD PRIMARY KEY (id);
CREATE TABLE accounts (id bigint PRIMARY KEY, code text UNIQUE);
CREATE TABLE jobs (
  id bigint PRIMARY KEY,
  owner_id bigint, owner_region int,
  host_id bigint, host_region int,
  b_id bigint REFERENCES base_child (id) ON DELETE CASCADE,
  account_id bigint REFERENCES accounts (id) ON UPDATE CASCADE ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'new',
  FOREIGN KEY (owner_id, owner_region) REFERENCES owners ON DELETE CASCADE ON UPDATE CASCADE,
  FOREIGN KEY (host_id, host_region) REFERENCES hosts_1 ON DELETE CASCADE
);
INSERT INTO owners VALUES (1, 1), (2, 2);
INSERT INTO hosts VALUES (1, 1), (2, 2);
INSERT INTO base_child (id) VALUES (1), (2);
INSERT INTO accounts VALUES (1, '1'), (2, '2');
INSERT INTO jobs (id, owner_id, owner_region, host_id, host_region, b_id, account_id)
  VALUES (101, 1, 1, 1, 1, 1, 1), (102, 2, 2, 2, 2, 2, 2);
