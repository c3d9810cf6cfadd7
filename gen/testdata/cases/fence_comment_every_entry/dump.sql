CREATE TABLE inventory (
    sku         text NOT NULL,
    warehouse   text NOT NULL,
    qty         int NOT NULL,
    lease_token bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (sku, warehouse)
);
