CREATE SCHEMA billing;

CREATE TYPE mood AS ENUM ('happy', 'very-sad', 'so/so', 'a:b', 'with space', 'dot.ted', 'café', '9lives', 'UPPER', 'snake_case', 'mixed-Case_value', '');
CREATE TYPE billing.invoice_state AS ENUM ('draft', 'sent', 'paid-late');
CREATE TYPE "Order-State" AS ENUM ('new', 'old');
CREATE TYPE api_level AS ENUM ('api_v1', 'url_html');
CREATE TYPE dupe_label AS ENUM ('a-b', 'a_b', 'value_1', 'x y', 'xy', '!', '?', 'a:b');

CREATE TABLE user_accounts (
  id bigserial PRIMARY KEY,
  user_id bigint NOT NULL,
  api_key text NOT NULL,
  html_url text,
  "Mixed Case" text,
  "type" text,
  "select" int,
  _private int,
  a__b int,
  x_1 int,
  "2fa" boolean,
  café text,
  mood mood NOT NULL,
  level api_level,
  "state" "Order-State",
  json_data jsonb,
  money_col numeric,
  uuid_col uuid,
  geo_col text,
  yaml_col text,
  v2_col text,
  null_col text,
  dec_col numeric,
  upper_col text,
  dotted_col text,
  gouuid_col text,
  minus_col text,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE billing.invoices (
  id serial PRIMARY KEY,
  state billing.invoice_state NOT NULL,
  total_cents bigint NOT NULL
);

CREATE TABLE api_keys (id int PRIMARY KEY, key text NOT NULL);
CREATE TABLE news_items (id int PRIMARY KEY, title text);
CREATE TABLE statuses (id int PRIMARY KEY);
CREATE TABLE campus (id int PRIMARY KEY);
CREATE TABLE "2fa_codes" (id int PRIMARY KEY, code text NOT NULL);
CREATE TABLE "item-tags" (item_id int, tag text);
CREATE TABLE "CamelTable" ("CamelCol" int, "ID" int);
CREATE TABLE people (id int PRIMARY KEY, name text);
