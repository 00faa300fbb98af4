package config

// RESTSpeed holds the settings of the REST hot path (issue #31).
type RESTSpeed struct {
	// SetAllRequestSettings makes every /rest/v1 request set
	// request.method, request.path, request.headers and request.cookies,
	// as PostgREST does, even when the schema cache found nothing in the
	// database that reads them (pkg/rest/schema/reads.go). Turn it on when
	// SQL reads them in a way the catalog search cannot see (a C function,
	// a name assembled from parts the search does not recognise) or when
	// DDL that reads them is deployed without NOTIFY pgrst.
	SetAllRequestSettings bool
}

// restSpeed reads the RESTSpeed group; nothing in it needs validation.
func (p *parser) restSpeed() RESTSpeed {
	return RESTSpeed{SetAllRequestSettings: p.boolean("REST_SET_ALL_REQUEST_SETTINGS", false)}
}
