package mail

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// The page is read on phones too: long links wrap anywhere instead of
// widening the page, and each link is a link.
var inboxPage = template.Must(template.New("inbox").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Dev inbox · Labelbase</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;color:#18181b}
h2{font-size:1.05rem;margin:0 0 .25rem}.meta{color:#52525b;font-size:.875rem;margin:0 0 .75rem}
article{border:1px solid #d4d4d8;border-radius:10px;padding:1rem;margin:1rem 0}
.body{white-space:pre-wrap;overflow-wrap:anywhere;font:14px/1.55 ui-monospace,SFMono-Regular,Menlo,monospace;margin:0}
a{color:#6d28d9}</style>
</head><body><h1>Dev inbox</h1><p>Mail captured by <code>labelbase dev</code>; nothing was sent.</p>
{{range .}}<article data-to="{{.To}}"><h2>{{.Subject}}</h2><p class="meta">To: {{.To}} · <time datetime="{{.SentAt.Format "2006-01-02T15:04:05Z07:00"}}" title="{{.SentAt.Format "2006-01-02 15:04:05Z07:00"}}">{{.Sent}}</time></p>
<pre class="body">{{range .Parts}}{{if .Link}}<a href="{{.Text}}">{{.Text}}</a>{{else}}{{.Text}}{{end}}{{end}}</pre></article>{{else}}<p>No mail yet.</p>{{end}}
</body></html>`))

// inboxEntry is a message as the page shows it.
type inboxEntry struct {
	Message
	Sent  string
	Parts []textPart
}

// textPart is a run of a mail's text: plain, or a link.
type textPart struct {
	Text string
	Link bool
}

var (
	linkPattern = regexp.MustCompile(`https?://[^\s<>"]+`)
	// Go's time.Duration.String form (1h0m0s, 15m0s, 90s), as mail texts
	// built with it show durations.
	goDuration = regexp.MustCompile(`\b(?:\d+h)?(?:\d+m)?\d+(?:\.\d+)?s\b|\b\d+h\d+m\b`)
)

// splitLinks cuts text into plain runs and http(s) links.
func splitLinks(text string) []textPart {
	var parts []textPart
	last := 0
	for _, m := range linkPattern.FindAllStringIndex(text, -1) {
		if m[0] > last {
			parts = append(parts, textPart{Text: text[last:m[0]]})
		}
		// A sentence's full stop or closing bracket is not part of the link.
		end := m[1]
		for end > m[0] && strings.ContainsRune(".,;:)]", rune(text[end-1])) {
			end--
		}
		parts = append(parts, textPart{Text: text[m[0]:end], Link: true})
		last = end
	}
	if last < len(text) {
		parts = append(parts, textPart{Text: text[last:]})
	}
	return parts
}

// HumanDuration says d in words ("1 hour", "1 hour 30 minutes", "45
// seconds") for people, where Go's String form would say 1h30m0s.
func HumanDuration(d time.Duration) string {
	if d < time.Second {
		return d.String()
	}
	units := []struct {
		size time.Duration
		name string
	}{{24 * time.Hour, "day"}, {time.Hour, "hour"}, {time.Minute, "minute"}, {time.Second, "second"}}
	var words []string
	for _, u := range units {
		n := d / u.size
		if n == 0 {
			continue
		}
		d -= n * u.size
		name := u.name
		if n != 1 {
			name += "s"
		}
		words = append(words, fmt.Sprintf("%d %s", n, name))
	}
	return strings.Join(words, " ")
}

// humanDurations rewrites Go-style durations in a mail's text in words.
func humanDurations(text string) string {
	return goDuration.ReplaceAllStringFunc(text, func(s string) string {
		d, err := time.ParseDuration(s)
		if err != nil {
			return s
		}
		return HumanDuration(d)
	})
}

// ago says how long before now t was, in words.
func ago(t, now time.Time) string {
	d := now.Sub(t).Truncate(time.Second)
	switch {
	case d < 10*time.Second:
		return "just now"
	case d < time.Minute:
		return HumanDuration(d) + " ago"
	case d < 24*time.Hour:
		return HumanDuration(d.Truncate(time.Minute)) + " ago"
	}
	return t.Format("2 Jan 2006, 15:04")
}

// ServeHTTP shows the inbox as a page, or as JSON when asked for
// (Accept: application/json), which is what the tests read.
func (in *Inbox) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	msgs := in.Messages()
	if to := strings.ToLower(r.URL.Query().Get("to")); to != "" {
		kept := msgs[:0:0]
		for _, m := range msgs {
			if strings.ToLower(m.To) == to {
				kept = append(kept, m)
			}
		}
		msgs = kept
	}
	w.Header().Set("Cache-Control", "no-store")
	if strings.Contains(r.Header.Get("Accept"), "application/json") {
		w.Header().Set("Content-Type", "application/json")
		writeJSON(w, msgs)
		return
	}
	now := time.Now()
	entries := make([]inboxEntry, len(msgs))
	for i, m := range msgs {
		entries[i] = inboxEntry{Message: m, Sent: ago(m.SentAt, now), Parts: splitLinks(humanDurations(m.Text))}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = inboxPage.Execute(w, entries)
}

func writeJSON(w http.ResponseWriter, v any) {
	_ = json.NewEncoder(w).Encode(v)
}
