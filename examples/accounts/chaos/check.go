package main

import "fmt"

// Write is one attempted credit, assembled from its begin and end lines.
type Write struct {
	Worker  int
	Seq     int64
	Account int64
	Token   int64
	Cents   int64
	Start   int64
	End     int64  // -1 when the worker died before reporting
	Result  string // Applied, Stale, Failed or Unknown
	Stored  int64
	Err     string

	Landed    bool  // found in the commit history
	CommitSeq int64 // its history seq when Landed
	Late      bool  // landed with a token below one already committed
}

func collectWrites(events []Event) []*Write {
	type key struct {
		w   int
		seq int64
	}
	byKey := map[key]*Write{}
	var out []*Write
	for _, e := range events {
		switch e.Ev {
		case "begin":
			w := &Write{Worker: e.Worker, Seq: e.Seq, Account: e.Account, Token: e.Token, Cents: e.Cents,
				Start: e.Start, End: -1, Result: Unknown}
			byKey[key{e.Worker, e.Seq}] = w
			out = append(out, w)
		case "end":
			if w := byKey[key{e.Worker, e.Seq}]; w != nil {
				w.End, w.Result, w.Stored, w.Err = e.End, e.Result, e.Stored, e.Err
			}
		}
	}
	return out
}

// Report is the checker's verdict and counts.
type Report struct {
	Violations  []string
	ByCheck     [5]int // violations of checks 1..4 (index 0: unmatched history rows)
	Leases      int
	Lost        int
	Applied     int
	Refused     int
	Errors      int
	Unknown     int
	LandedOther int // writes without an acknowledgement (error or unknown) that landed
	Faults      map[string]int
	// AfterPause counts the writes a worker sent within pauseSlackUS after
	// it was resumed from a SIGSTOP, under the lease it had announced just
	// before it (same account, same token; not the writes of a lease it
	// took after waking). Each is counted in exactly one of the others:
	//   - AfterPauseLate: landed with a token below one already committed
	//     to the account (a violation; only without the guard);
	//   - AfterPauseRefused: refused as stale: a newer holder had written;
	//   - AfterPauseInOrder: landed, and no higher token had been committed
	//     to the account before it: the lease had expired in Redis, but no
	//     newer holder had written the account yet, so the write was still
	//     the latest (the next holder's writes land after it);
	//   - AfterPauseFailed: did not land, and the worker got an error, or
	//     never reported an outcome (killed, or stopped at the end of the
	//     run);
	//   - AfterPauseMissing: acknowledged as applied but not in the history
	//     (a violation of check 3).
	AfterPause, AfterPauseLate, AfterPauseRefused, AfterPauseInOrder, AfterPauseFailed, AfterPauseMissing int
}

const pauseSlackUS = 500_000

func (r *Report) fail(check int, format string, a ...any) {
	r.ByCheck[check]++
	if len(r.Violations) < 1000 {
		r.Violations = append(r.Violations, fmt.Sprintf("(%d) ", check)+fmt.Sprintf(format, a...))
	}
}

// Check verifies the history against the final database state:
//
//  1. per account, the tokens of the writes in commit order never decrease;
//  2. each final balance is the initial balance plus exactly the credits
//     that landed, which are the acknowledged ones plus those whose outcome
//     the worker never learned (an error or a crash);
//  3. every write acknowledged as applied is in the commit history;
//  4. every write refused as stale was stale: it did not land, and a write
//     with a higher token had landed on that account before the refusal.
//
// Every committed update must also match exactly one attempted write.
func Check(res *Result) Report {
	rep := Report{Faults: map[string]int{}}
	for _, f := range res.Faults {
		rep.Faults[f.Kind]++
	}
	for _, e := range res.Events {
		switch e.Ev {
		case "lease":
			rep.Leases++
		case "lost":
			rep.Lost++
		}
	}
	type key struct{ account, cents int64 }
	byAmount := map[key]*Write{}
	for _, w := range res.Writes {
		byAmount[key{w.Account, w.Cents}] = w
		switch w.Result {
		case Applied:
			rep.Applied++
		case Stale:
			rep.Refused++
		case Failed:
			rep.Errors++
		case Unknown:
			rep.Unknown++
		}
	}
	// Check 1, walking the commit history.
	maxTok := map[int64]int64{}
	landedSum := map[int64]int64{}
	for _, h := range res.History {
		w := byAmount[key{h.Account, h.Cents}]
		if w == nil {
			rep.fail(0, "account %d: committed update #%d of %d cents matches no attempted write", h.Account, h.Seq, h.Cents)
			continue
		}
		if w.Landed {
			rep.fail(2, "account %d: write %d/%d committed twice", h.Account, w.Worker, w.Seq)
			continue
		}
		w.Landed, w.CommitSeq = true, h.Seq
		if res.Mode == "guarded" && h.Token != w.Token {
			rep.fail(1, "account %d: update #%d stored token %d, but its write presented %d", h.Account, h.Seq, h.Token, w.Token)
		}
		landedSum[h.Account] += h.Cents
		if m, ok := maxTok[h.Account]; ok && w.Token < m {
			w.Late = true
			rep.fail(1, "account %d: worker %d's write with token %d committed (#%d) after token %d", h.Account, w.Worker, w.Token, h.Seq, m)
		}
		if w.Token > maxTok[h.Account] {
			maxTok[h.Account] = w.Token
		}
		if w.Result != Applied {
			rep.LandedOther++
		}
	}
	// Check 2.
	for acct, initial := range res.Initial {
		var acked, other int64
		for _, w := range res.Writes {
			if w.Account != acct {
				continue
			}
			if w.Result == Applied {
				acked += w.Cents
			} else if w.Landed && w.Result != Stale {
				other += w.Cents
			}
		}
		want := initial + acked + other
		if got := res.Final[acct]; got != want || got != initial+landedSum[acct] {
			rep.fail(2, "account %d: final balance %s, want %s (initial %s + acknowledged %s + unacknowledged that landed %s)",
				acct, cents(got), cents(want), cents(initial), cents(acked), cents(other))
		}
	}
	// Checks 3 and 4.
	landed := map[int64][]*Write{}
	for _, w := range res.Writes {
		if w.Landed {
			landed[w.Account] = append(landed[w.Account], w)
		}
	}
	for _, w := range res.Writes {
		switch w.Result {
		case Applied:
			if !w.Landed {
				rep.fail(3, "account %d: worker %d's write %d (token %d) was acknowledged but is not in the history", w.Account, w.Worker, w.Seq, w.Token)
			}
		case Stale:
			if w.Landed {
				rep.fail(4, "account %d: worker %d's write %d was refused as stale but landed", w.Account, w.Worker, w.Seq)
				continue
			}
			stale := false
			for _, o := range landed[w.Account] {
				if o.Token > w.Token && o.Start <= w.End {
					stale = true
					break
				}
			}
			if !stale {
				rep.fail(4, "account %d: worker %d's write %d with token %d was refused (stored %d) but no higher token had landed by then", w.Account, w.Worker, w.Seq, w.Token, w.Stored)
			}
		}
	}
	// The writes a worker sent right after a SIGSTOP, with the token it
	// held before the pause: the overlaps the schedule provokes.
	for _, f := range res.Faults {
		if f.Kind != FaultPause {
			continue
		}
		for _, w := range res.Writes {
			// Tokens are per account: a lease on another account taken
			// after the pause can carry the same number.
			if w.Worker != f.Worker || w.Account != f.Account || w.Token != f.Token || w.Start < f.End || w.Start > f.End+pauseSlackUS {
				continue
			}
			rep.AfterPause++
			switch {
			case w.Late:
				rep.AfterPauseLate++
			case w.Result == Stale:
				rep.AfterPauseRefused++
			case w.Landed:
				rep.AfterPauseInOrder++
			case w.Result == Applied:
				rep.AfterPauseMissing++
			default:
				rep.AfterPauseFailed++
			}
		}
	}
	return rep
}

// Total is the number of violations.
func (r Report) Total() int {
	n := 0
	for _, v := range r.ByCheck {
		n += v
	}
	return n
}

func cents(n int64) string {
	sign := ""
	if n < 0 {
		sign, n = "-", -n
	}
	return fmt.Sprintf("%s%d.%02d", sign, n/100, n%100)
}
