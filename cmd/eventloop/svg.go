package main

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// writeSVG draws Table 1 of the first driver as two panels against N (log
// scale): the resume depth of the last fiber resumed, and memory after the
// tick, with the rule on and off.
func writeSVG(w io.Writer, rep *Report) error {
	if len(rep.Drivers) == 0 || len(rep.Drivers[0].Nesting) == 0 {
		return fmt.Errorf("no nesting rows to draw")
	}
	d := rep.Drivers[0]
	const pw, ph, margin = 420.0, 300.0, 60.0
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n",
		2*(pw+margin)+margin, ph+2*margin)
	fmt.Fprintf(&b, `<text x="%.0f" y="20" font-size="14">Driver %s: N fibers resumed in one tick, drain rule on and off</text>`+"\n", margin, d.Driver)
	panel := func(x0 float64, title, unit string, value func(NestingRow) float64) {
		minN, maxN, maxV := math.Inf(1), 0.0, 0.0
		for _, r := range d.Nesting {
			minN = math.Min(minN, float64(r.N))
			maxN = math.Max(maxN, float64(r.N))
			maxV = math.Max(maxV, value(r))
		}
		if maxV <= 0 {
			maxV = 1
		}
		lx := func(n float64) float64 {
			if maxN == minN {
				return x0 + pw/2
			}
			return x0 + pw*(math.Log(n)-math.Log(minN))/(math.Log(maxN)-math.Log(minN))
		}
		ly := func(v float64) float64 { return margin + ph - ph*v/maxV }
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f">%s</text>`+"\n", x0, margin-10, title)
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="none" stroke="#999"/>`+"\n", x0, margin, pw, ph)
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="end">%.4g %s</text>`+"\n", x0-4, margin+4, maxV, unit)
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="end">0</text>`+"\n", x0-4, margin+ph)
		seen := map[int]bool{}
		for _, r := range d.Nesting {
			if !seen[r.N] {
				seen[r.N] = true
				fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle">%d</text>`+"\n", lx(float64(r.N)), margin+ph+16, r.N)
			}
		}
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="middle">N (log scale)</text>`+"\n", x0+pw/2, margin+ph+34)
		for _, rule := range []bool{false, true} {
			color, label := "#c0392b", "rule off"
			if rule {
				color, label = "#2471a3", "rule on"
			}
			var pts []string
			for _, r := range d.Nesting {
				if r.Rule == rule {
					pts = append(pts, fmt.Sprintf("%.1f,%.1f", lx(float64(r.N)), ly(value(r))))
				}
			}
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), color)
			for _, p := range pts {
				xy := strings.Split(p, ",")
				fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="3" fill="%s"/>`+"\n", xy[0], xy[1], color)
			}
			yl := margin + 16
			if rule {
				yl += 16
			}
			fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" fill="%s">%s</text>`+"\n", x0+8, yl, color, label)
		}
	}
	panel(margin, "Resume depth of the last fiber resumed", "", func(r NestingRow) float64 { return float64(r.DepthLast) })
	panel(2*margin+pw, "Heap + stacks after the tick (errors held)", "MiB", func(r NestingRow) float64 { return float64(r.MemAfter) / (1 << 20) })
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
