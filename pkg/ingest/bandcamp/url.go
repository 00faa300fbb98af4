package bandcamp

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
)

// Domain is Bandcamp's registrable domain; accounts live on its subdomains.
const Domain = "bandcamp.com"

// SubmissionKind says what a submitted URL points at.
type SubmissionKind int

const (
	// Invalid is a submission that cannot name an account.
	Invalid SubmissionKind = iota
	// Account is an account origin on a Bandcamp subdomain.
	Account
	// SitePage is a path on bandcamp.com itself: a fan profile or a site
	// feature. It is fetched only to say which, for the submitter's sake.
	SitePage
	// Foreign is a host outside Bandcamp. It may be an account's custom
	// domain, but a submission alone never makes the crawler contact it.
	Foreign
)

// Submission is a submitted label URL after SPEC §5's normalisation.
type Submission struct {
	Kind SubmissionKind
	// URL is https://{sub}.bandcamp.com for Account, https://bandcamp.com/{name}
	// for SitePage and https://{host} for Foreign.
	URL string
	// Reason says why an Invalid submission was refused.
	Reason string
}

// slug is what SPEC §5 allows in a subdomain or a /label/{name} path.
var slug = regexp.MustCompile(`^[a-z0-9-]+$`)

// sitePath is one path segment on bandcamp.com (fan names allow underscores).
var sitePath = regexp.MustCompile(`^[a-z0-9_-]+$`)

// NormaliseSubmission applies SPEC §5 to a queued URL: trimmed and
// lowercased, a subdomain URL reduced to its origin, and a
// bandcamp.com/label/{name} URL rewritten to {name}.bandcamp.com, a form
// Bandcamp itself does not serve. A missing scheme is tolerated because rows
// may arrive through the REST API without the web form's checks.
func NormaliseSubmission(raw string) Submission {
	s := strings.ToLower(strings.TrimSpace(raw))
	if s == "" {
		return invalid("empty URL")
	}
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return invalid("not a URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return invalid(fmt.Sprintf("scheme %q is not http or https", u.Scheme))
	}
	if u.User != nil || u.Port() != "" {
		return invalid("URLs with credentials or ports are not accepted")
	}
	host := strings.TrimSuffix(u.Hostname(), ".")
	if host == "www."+Domain {
		host = Domain
	}
	switch {
	case host == Domain:
		return siteSubmission(strings.Trim(u.Path, "/"))
	case strings.HasSuffix(host, "."+Domain):
		sub := strings.TrimSuffix(host, "."+Domain)
		if !slug.MatchString(sub) {
			return invalid(fmt.Sprintf("%q is not an account subdomain", host))
		}
		return Submission{Kind: Account, URL: AccountOrigin(sub)}
	case IsCustomDomain(host):
		return Submission{Kind: Foreign, URL: "https://" + host}
	default:
		return invalid(fmt.Sprintf("%q is not a host name", host))
	}
}

func siteSubmission(path string) Submission {
	parts := strings.Split(path, "/")
	switch {
	case path == "":
		return invalid("bandcamp.com itself is not a label")
	case len(parts) == 2 && parts[0] == "label" && slug.MatchString(parts[1]):
		return Submission{Kind: Account, URL: AccountOrigin(parts[1])}
	case len(parts) == 1 && parts[0] != "label" && sitePath.MatchString(parts[0]):
		return Submission{Kind: SitePage, URL: "https://" + Domain + "/" + parts[0]}
	default:
		return invalid("a bandcamp.com path that names no account")
	}
}

func invalid(reason string) Submission { return Submission{Kind: Invalid, Reason: reason} }

// AccountOrigin is the canonical URL of the account on subdomain sub.
func AccountOrigin(sub string) string { return "https://" + sub + "." + Domain }

// IsBandcampHost reports whether host is bandcamp.com or one of its subdomains.
func IsBandcampHost(host string) bool {
	return host == Domain || strings.HasSuffix(host, "."+Domain)
}

// IsCustomDomain reports whether host could be an account's own domain: a
// DNS name with at least two labels, outside Bandcamp, and not an IP
// literal (which would let a page point the crawler at any address).
func IsCustomDomain(host string) bool {
	if host == "" || len(host) > 253 || IsBandcampHost(host) || net.ParseIP(host) != nil {
		return false
	}
	labels := strings.Split(host, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || !slug.MatchString(l) || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
	}
	return true
}

// NormaliseURL resolves ref against base and returns it in the form stored
// in the database: https, lower-case host, no credentials, port, query,
// fragment or trailing slash. Query strings such as ?label=…&tab=music only
// say how a page was reached, so dropping them makes one release one URL.
func NormaliseURL(ref string, base *url.URL) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(ref))
	if err != nil {
		return nil, fmt.Errorf("bandcamp: bad URL %q: %w", ref, err)
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("bandcamp: URL %q is not http(s)", ref)
	}
	if u.Host == "" || u.Port() != "" {
		return nil, errors.New("bandcamp: URL has no host or has a port")
	}
	return &url.URL{Scheme: "https", Host: strings.ToLower(u.Hostname()), Path: strings.TrimRight(u.Path, "/")}, nil
}
