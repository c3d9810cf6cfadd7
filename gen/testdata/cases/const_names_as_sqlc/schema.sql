CREATE TABLE users(id bigint PRIMARY KEY, email text NOT NULL);
