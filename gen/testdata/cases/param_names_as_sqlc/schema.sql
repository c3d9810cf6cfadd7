CREATE TABLE people (id int PRIMARY KEY, name text, token text, uuid text);
