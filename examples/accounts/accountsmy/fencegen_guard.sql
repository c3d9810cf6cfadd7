-- fencegen: the database-side fencing guard (engine mysql): for each fenced table, a BEFORE UPDATE
-- trigger refusing a token that does not beat the stored one (mode required: also an UPDATE that leaves
-- the token as stored without declaring it in @fencegen_token or @fencegen_presented, as presented=0),
-- and a BEFORE DELETE trigger refusing a DELETE when the session's @fencegen_token does not beat it.
-- Both SIGNAL SQLSTATE '45000' (error 1644), which fencegen's generated code reports as fence.ErrStaleToken.
-- With these triggers, connect with clientFoundRows=true (go-sql-driver/mysql DSN): a trigger clears the
-- UPDATE's last-insert id, and without it an UPDATE that changes nothing may read as a concurrent change.
-- Apply it with a client that sends each compound statement whole (the mysql client: DELIMITER).

DROP TRIGGER IF EXISTS `fencegen_bu_account_balances`;

DROP TRIGGER IF EXISTS `fencegen_bd_account_balances`;

DELIMITER //
CREATE TRIGGER `fencegen_bu_account_balances` BEFORE UPDATE ON `account_balances` FOR EACH ROW
BEGIN
  DECLARE fencegen_message VARCHAR(128);
  IF NEW.`last_fencing_token` < OLD.`last_fencing_token` THEN
    SET fencegen_message = LEFT(CONCAT('fencegen: stale token presented=', NEW.`last_fencing_token`, ' stored=', OLD.`last_fencing_token`, ' mode=non-strict table=account_balances'), 128);
    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = fencegen_message;
  END IF;
END //
DELIMITER ;

DELIMITER //
CREATE TRIGGER `fencegen_bd_account_balances` BEFORE DELETE ON `account_balances` FOR EACH ROW
BEGIN
  DECLARE fencegen_message VARCHAR(128);
  IF @fencegen_token IS NOT NULL AND NOT (OLD.`last_fencing_token` <= @fencegen_token) THEN
    SET fencegen_message = LEFT(CONCAT('fencegen: stale token presented=', @fencegen_token, ' stored=', OLD.`last_fencing_token`, ' mode=non-strict table=account_balances'), 128);
    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = fencegen_message;
  END IF;
END //
DELIMITER ;
