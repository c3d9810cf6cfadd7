package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// PaymentRequest is the body of a POST to the provider's /v1/payouts.
type PaymentRequest struct {
	PayoutID    int64 `json:"payout_id"`
	AmountCents int64 `json:"amount_cents"`
}

// PaymentResponse is the provider's answer: the reference of the payment,
// and whether it is the answer to an earlier request with the same
// Idempotency-Key (no money moved this time).
type PaymentResponse struct {
	Ref      string `json:"ref"`
	Replayed bool   `json:"replayed"`
}

// Provider stands in for an outside payment provider: a real HTTP server
// on 127.0.0.1 that pays out every POST /v1/payouts it receives, except a
// request whose Idempotency-Key header it has seen before, which gets the
// first request's answer again and moves no money (the convention of
// Stripe's and Adyen's APIs, and of the IETF draft "The Idempotency-Key
// HTTP Header Field"). It knows nothing about leases or fencing tokens:
// that is the point of the example.
type Provider struct {
	srv *http.Server
	url string

	mu       sync.Mutex
	payments map[int64]int              // payout id -> money transfers made
	byKey    map[string]PaymentResponse // Idempotency-Key -> first answer
	next     int
}

// StartProvider listens on a free port of 127.0.0.1 and serves until
// Close.
func StartProvider() (*Provider, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("payment provider: %w", err)
	}
	p := &Provider{url: "http://" + ln.Addr().String(), payments: map[int64]int{}, byKey: map[string]PaymentResponse{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/payouts", p.pay)
	p.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go p.srv.Serve(ln)
	return p, nil
}

// URL is the provider's base URL, http://127.0.0.1:<port>.
func (p *Provider) URL() string { return p.url }

// Payments returns how many times the provider moved money for payoutID.
func (p *Provider) Payments(payoutID int64) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.payments[payoutID]
}

// Close stops the server.
func (p *Provider) Close() error { return p.srv.Close() }

func (p *Provider) pay(w http.ResponseWriter, r *http.Request) {
	var req PaymentRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.PayoutID == 0 || req.AmountCents <= 0 {
		http.Error(w, "bad payment request", http.StatusBadRequest)
		return
	}
	key := r.Header.Get("Idempotency-Key")
	p.mu.Lock()
	resp, seen := p.byKey[key]
	if seen && key != "" {
		resp.Replayed = true
	} else {
		p.next++
		p.payments[req.PayoutID]++
		resp = PaymentResponse{Ref: "pay_" + strconv.Itoa(p.next)}
		if key != "" {
			p.byKey[key] = resp
		}
	}
	p.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

// Pay sends one payment to the provider at baseURL, with the given
// Idempotency-Key unless key is empty. It returns the provider's answer,
// or an error for a transport failure or a status other than 200.
func Pay(ctx context.Context, baseURL string, req PaymentRequest, key string) (PaymentResponse, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return PaymentResponse{}, err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, baseURL+"/v1/payouts", bytes.NewReader(body))
	if err != nil {
		return PaymentResponse{}, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	if key != "" {
		hreq.Header.Set("Idempotency-Key", key)
	}
	res, err := http.DefaultClient.Do(hreq)
	if err != nil {
		return PaymentResponse{}, fmt.Errorf("pay payout %d: %w", req.PayoutID, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return PaymentResponse{}, fmt.Errorf("pay payout %d: provider answered %s", req.PayoutID, res.Status)
	}
	var out PaymentResponse
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		return PaymentResponse{}, fmt.Errorf("pay payout %d: %w", req.PayoutID, err)
	}
	if out.Ref == "" {
		return PaymentResponse{}, errors.New("pay payout: provider answered without a reference")
	}
	return out, nil
}
