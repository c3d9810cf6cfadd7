package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzProviderRequest feeds the stand-in provider arbitrary bodies and
// keys: it answers 200 with a reference and moves money at most once per
// key, or 400 and moves none; it never panics.
func FuzzProviderRequest(f *testing.F) {
	f.Add(`{"payout_id":42,"amount_cents":10000}`, "payout:42/1")
	f.Add(`{"payout_id":42,"amount_cents":10000}`, "")
	f.Add(`{"payout_id":0,"amount_cents":1}`, "k")
	f.Add(`{"payout_id":1,"amount_cents":-5}`, "k")
	f.Add(`{"payout_id":1e99}`, "")
	f.Add(`[`, "k")
	f.Fuzz(func(t *testing.T, body, key string) {
		p := &Provider{payments: map[int64]int{}, byKey: map[string]PaymentResponse{}}
		var first PaymentResponse
		for i := range 2 {
			req := httptest.NewRequest(http.MethodPost, "/v1/payouts", strings.NewReader(body))
			req.Header.Set("Idempotency-Key", key)
			rec := httptest.NewRecorder()
			p.pay(rec, req)
			switch rec.Code {
			case http.StatusBadRequest:
				if len(p.payments) != 0 {
					t.Fatalf("a refused request moved money: %v", p.payments)
				}
				return
			case http.StatusOK:
			default:
				t.Fatalf("status %d", rec.Code)
			}
			var res PaymentResponse
			if err := json.Unmarshal(rec.Body.Bytes(), &res); err != nil || res.Ref == "" {
				t.Fatalf("answer %q: %v", rec.Body.String(), err)
			}
			if i == 0 {
				first = res
			} else if key != "" && (res.Ref != first.Ref || !res.Replayed) {
				t.Fatalf("same key %q twice: %+v then %+v", key, first, res)
			}
		}
		var total int
		for _, n := range p.payments {
			total += n
		}
		if want := map[bool]int{true: 2, false: 1}[key == ""]; total != want {
			t.Fatalf("key %q: %d payments for two requests, want %d", key, total, want)
		}
	})
}
