package mail

import (
	"encoding/json"
	"html/template"
	"net/http"
	"strings"
)

var inboxPage = template.Must(template.New("inbox").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Dev inbox · Labelbase</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem}
article{border:1px solid #ccc;border-radius:6px;padding:1rem;margin:1rem 0}pre{white-space:pre-wrap}</style>
</head><body><h1>Dev inbox</h1><p>Mail captured by <code>labelbase dev</code>; nothing was sent.</p>
{{range .}}<article data-to="{{.To}}"><h2>{{.Subject}}</h2><p>To: {{.To}} · {{.SentAt.Format "2006-01-02 15:04:05Z07:00"}}</p>
<pre>{{.Text}}</pre></article>{{else}}<p>No mail yet.</p>{{end}}
</body></html>`))

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
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = inboxPage.Execute(w, msgs)
}

func writeJSON(w http.ResponseWriter, v any) {
	_ = json.NewEncoder(w).Encode(v)
}
