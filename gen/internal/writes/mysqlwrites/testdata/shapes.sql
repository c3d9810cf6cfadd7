-- The schema of the held-out MySQL write shapes (writes_test.go,
-- package mysqloracle's tests): accounts and holds are fenced (their
-- fence column), the rest are not.
CREATE TABLE accounts (id BIGINT PRIMARY KEY, fence BIGINT NOT NULL DEFAULT 0, balance INT NOT NULL DEFAULT 0);
CREATE TABLE ledger (id BIGINT PRIMARY KEY AUTO_INCREMENT, account_id BIGINT, amount INT NOT NULL DEFAULT 0,
  FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE);
CREATE TABLE holds (id BIGINT PRIMARY KEY, fence BIGINT NOT NULL DEFAULT 0, account_id BIGINT,
  FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE SET NULL ON UPDATE CASCADE);
CREATE TABLE notes (id BIGINT PRIMARY KEY, body TEXT);
CREATE TABLE audit (id BIGINT PRIMARY KEY AUTO_INCREMENT, what TEXT);
CREATE VIEW rich AS SELECT id, balance FROM accounts WHERE balance >= 0;
CREATE VIEW note_view AS SELECT id, body FROM notes;

DELIMITER $$
CREATE TRIGGER notes_touch AFTER INSERT ON notes FOR EACH ROW
BEGIN
  UPDATE accounts SET balance = balance + 1 WHERE id = NEW.id;
END$$
CREATE TRIGGER audit_check BEFORE UPDATE ON audit FOR EACH ROW
BEGIN
  IF NEW.id < 0 THEN
    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'negative';
  END IF;
END$$
CREATE PROCEDURE pay(IN a BIGINT)
BEGIN
  DECLARE x INT DEFAULT 0;
  UPDATE accounts SET balance = balance - 1 WHERE id = a;
END$$
CREATE PROCEDURE note(IN a BIGINT)
BEGIN
  INSERT INTO audit (what) VALUES (CONCAT('note ', a));
END$$
CREATE PROCEDURE dyn()
BEGIN
  PREPARE s FROM 'DELETE FROM accounts';
  EXECUTE s;
END$$
CREATE FUNCTION bump(a BIGINT) RETURNS INT MODIFIES SQL DATA
BEGIN
  UPDATE accounts SET balance = 0 WHERE id = a;
  RETURN 1;
END$$
CREATE FUNCTION pure(a BIGINT) RETURNS BIGINT DETERMINISTIC NO SQL RETURN a + 1$$
CREATE FUNCTION via_note(a BIGINT) RETURNS INT MODIFIES SQL DATA
BEGIN
  INSERT INTO notes (id, body) VALUES (a + 1000, 'x');
  RETURN 1;
END$$
DELIMITER ;
CREATE VIEW bumped AS SELECT id, bump(id) AS b FROM notes;
