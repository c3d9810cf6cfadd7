package main

import (
	"fmt"
	"html"
	"sort"
	"strings"
)

var accountColors = []string{"#4e79a7", "#f28e2b", "#76b7b2", "#b07aa1", "#edc948", "#9c755f"}

// SVG draws the run: one lane per worker process (leases held, colored by
// account and labelled with their token; SIGSTOP pauses hatched; partitions
// and stalls underlined; writes as ticks: green applied, red refused as
// stale, black landed with a stale token, orange outcome unknown), Redis
// restarts as vertical lines, and one lane per account with the token of
// each committed write over time.
func SVG(res *Result, cfg Config) string {
	const (
		left, right, top = 120.0, 20.0, 76.0
		width            = 1400.0
		laneH            = 28.0
		acctH            = 70.0
	)
	dur := float64(res.DurationUS)
	if dur <= 0 {
		dur = 1
	}
	x := func(t int64) float64 { return left + float64(t)/dur*(width-left-right) }
	height := top + float64(len(res.Workers))*laneH + 30 + float64(len(res.Initial))*(acctH+10) + 40
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`+"\n", width, height)
	p(`<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="3" height="6" fill="#888" fill-opacity="0.55"/></pattern></defs>` + "\n")
	p(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	r := res.Report
	p(`<text x="10" y="18" font-size="14" font-weight="bold">fencegen chaos, %s run, seed %d: %d violations</text>`+"\n", res.Mode, cfg.Seed, r.Total())
	p(`<text x="10" y="36">leases %d (lost %d), writes applied %d, refused %d, failed %d, unknown %d.</text>`+"\n",
		r.Leases, r.Lost, r.Applied, r.Refused, r.Errors, r.Unknown)
	p(`<text x="10" y="52">Bars: lease held (color = account, label = token); hatched: SIGSTOP; underline: Redis partition (red) or stall (orange); ticks: <tspan fill="#2ca02c">applied</tspan>, <tspan fill="#d62728">refused stale</tspan>, <tspan font-weight="bold">landed stale</tspan>, <tspan fill="#ff7f0e">unknown/error</tspan>; X: SIGKILL.</text>` + "\n")
	// Time axis every second.
	axisBottom := top + float64(len(res.Workers))*laneH
	for s := int64(0); s*1e6 <= res.DurationUS; s++ {
		if res.DurationUS > 120e6 && s%10 != 0 {
			continue
		}
		p(`<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#eee"/>`+"\n", x(s*1e6), top-8, x(s*1e6), height-30)
		p(`<text x="%.1f" y="%.0f" fill="#999" text-anchor="middle">%ds</text>`+"\n", x(s*1e6), height-16, s)
	}
	lane := map[int]float64{}
	for i, w := range res.Workers {
		y := top + float64(i)*laneH
		lane[w.ID] = y
		p(`<text x="10" y="%.1f">worker %d</text>`+"\n", y+15, w.ID)
		end := w.End
		if end == 0 {
			end = res.DurationUS
		}
		p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ccc"/>`+"\n", x(w.Start), y+11, x(end), y+11)
		if w.Killed {
			p(`<text x="%.1f" y="%.1f" fill="#d62728" font-weight="bold" text-anchor="middle">X</text>`+"\n", x(end), y+15)
		}
	}
	// Lease bars: from "lease" to the first "lost" or "release" of it.
	type held struct {
		acct, tok, start int64
	}
	open := map[int]*held{}
	bar := func(wid int, h *held, end int64, lost bool) {
		y := lane[wid]
		c := accountColors[int(h.acct-1)%len(accountColors)]
		p(`<rect x="%.1f" y="%.1f" width="%.1f" height="14" fill="%s" fill-opacity="0.8"><title>worker %d: account %d, token %d%s</title></rect>`+"\n",
			x(h.start), y+4, max(x(end)-x(h.start), 1), c, wid, h.acct, h.tok, map[bool]string{true: " (lost)"}[lost])
		if x(end)-x(h.start) > 22 {
			p(`<text x="%.1f" y="%.1f" fill="white" font-size="9">a%d #%d</text>`+"\n", x(h.start)+2, y+14, h.acct, h.tok)
		}
	}
	for _, e := range res.Events {
		switch e.Ev {
		case "lease":
			open[e.Worker] = &held{e.Account, e.Token, e.T}
		case "lost", "release":
			if h := open[e.Worker]; h != nil && h.tok == e.Token {
				bar(e.Worker, h, e.T, e.Ev == "lost")
				delete(open, e.Worker)
			}
		}
	}
	for wid, h := range open {
		end := res.DurationUS
		for _, w := range res.Workers {
			if w.ID == wid && w.End > 0 {
				end = w.End
			}
		}
		bar(wid, h, end, false)
	}
	// Faults.
	for _, f := range res.Faults {
		y, ok := lane[f.Worker]
		switch f.Kind {
		case FaultPause:
			if ok {
				p(`<rect x="%.1f" y="%.1f" width="%.1f" height="22" fill="url(#hatch)" stroke="#555"><title>worker %d SIGSTOP</title></rect>`+"\n", x(f.Start), y, x(f.End)-x(f.Start), f.Worker)
			}
		case FaultPartition, FaultStall:
			if ok {
				c := map[string]string{FaultPartition: "#d62728", FaultStall: "#ff7f0e"}[f.Kind]
				p(`<rect x="%.1f" y="%.1f" width="%.1f" height="3" fill="%s"><title>worker %d Redis %s</title></rect>`+"\n", x(f.Start), y+21, x(f.End)-x(f.Start), c, f.Worker, f.Kind)
			}
		case FaultRestartKeep, FaultRestartLose:
			c := map[string]string{FaultRestartKeep: "#7f7f7f", FaultRestartLose: "#d62728"}[f.Kind]
			p(`<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="%s" stroke-dasharray="4 3"/>`+"\n", x(f.Start), top-8, x(f.Start), height-30, c)
			p(`<text x="%.1f" y="%.0f" fill="%s" font-size="9">redis %s</text>`+"\n", x(f.Start)+2, top-10, c, html.EscapeString(f.Kind))
		}
	}
	// Writes.
	for _, w := range res.Writes {
		y, t := lane[w.Worker], w.End
		if t < 0 {
			t = w.Start
		}
		c := "#ff7f0e"
		switch {
		case w.Late:
			c = "black"
		case w.Result == Applied:
			c = "#2ca02c"
		case w.Result == Stale:
			c = "#d62728"
		}
		p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%d"><title>worker %d write %d: account %d, token %d, %s</title></line>`+"\n",
			x(t), y+1, x(t), y+21, c, map[bool]int{true: 3, false: 2}[w.Late || w.Result == Stale], w.Worker, w.Seq, w.Account, w.Token, w.Result)
	}
	// Account lanes: token of each committed write, in commit order.
	var accts []int64
	for a := range res.Initial {
		accts = append(accts, a)
	}
	sort.Slice(accts, func(i, j int) bool { return accts[i] < accts[j] })
	bySeq := map[int64]*Write{}
	for _, w := range res.Writes {
		if w.Landed {
			bySeq[w.CommitSeq] = w
		}
	}
	for i, a := range accts {
		y0 := axisBottom + 30 + float64(i)*(acctH+10)
		var pts []*Write
		var maxTok int64 = 1
		for _, h := range res.History {
			if w := bySeq[h.Seq]; h.Account == a && w != nil {
				pts = append(pts, w)
				maxTok = max(maxTok, w.Token)
			}
		}
		c := accountColors[int(a-1)%len(accountColors)]
		p(`<text x="10" y="%.1f" fill="%s">account %d</text><text x="10" y="%.1f" fill="#999" font-size="9">token 0..%d</text>`+"\n", y0+acctH/2, c, a, y0+acctH/2+12, maxTok)
		p(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#ddd"/>`+"\n", left, y0, width-left-right, acctH)
		ty := func(tok int64) float64 { return y0 + acctH - float64(tok)/float64(maxTok)*(acctH-6) }
		var line strings.Builder
		px, py := left, ty(0)
		fmt.Fprintf(&line, "%.1f,%.1f", px, py)
		for _, w := range pts {
			t := w.End
			if t < 0 {
				t = w.Start
			}
			nx := max(x(t), px)
			fmt.Fprintf(&line, " %.1f,%.1f %.1f,%.1f", nx, py, nx, ty(w.Token))
			px, py = nx, ty(w.Token)
		}
		fmt.Fprintf(&line, " %.1f,%.1f", x(res.DurationUS), py)
		p(`<polyline points="%s" fill="none" stroke="%s" stroke-width="1.5"/>`+"\n", line.String(), c)
		for _, w := range pts {
			if w.Late {
				t := w.End
				if t < 0 {
					t = w.Start
				}
				p(`<circle cx="%.1f" cy="%.1f" r="3.5" fill="black"><title>worker %d landed token %d after a higher one</title></circle>`+"\n", max(x(t), left), ty(w.Token), w.Worker, w.Token)
			}
		}
	}
	p("</svg>\n")
	return b.String()
}
