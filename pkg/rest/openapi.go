package rest

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/rest/pgrst"
	"github.com/labelbase/labelbase/pkg/rest/schema"
)

// root serves GET /rest/v1/: a Swagger 2.0 description of the exposed
// schema's tables and functions, as PostgREST's root endpoint does.
func (a *API) root(c *echo.Context) error {
	r := c.Request()
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		if r.Method == http.MethodOptions {
			c.Response().Header().Set("Allow", "OPTIONS,GET,HEAD")
			return c.NoContent(http.StatusOK)
		}
		return pgrst.UnsupportedMethod(r.Method)
	}
	rc, err := a.begin(c, true)
	if err != nil {
		return err
	}
	var vis *visible
	switch rc.set.OpenAPIMode {
	case "disabled":
		return apierr.New(http.StatusNotFound, pgrst.CodeOpenAPIDisabled, "Root endpoint metadata is disabled")
	case "ignore-privileges":
		vis = everything(rc.sc, rc.schema)
	default:
		res, err := a.exec(rc, a.spec(rc, true, privilegesStatement(rc.sc, rc.schema), nil))
		if err != nil {
			return err
		}
		if vis, err = parseVisible(res.body); err != nil {
			return err
		}
	}
	body, err := json.Marshal(openAPI(rc.sc, rc.schema, r.Host, vis))
	if err != nil {
		return apierr.Internal(err)
	}
	if r.Method == http.MethodHead {
		c.Response().Header().Set("Content-Type", ctOpenAPI)
		return c.NoContent(http.StatusOK)
	}
	return c.Blob(http.StatusOK, ctOpenAPI, body)
}

type obj = map[string]any

// swaggerType maps a PostgreSQL type to a Swagger type and format.
func swaggerType(col *schema.Column) obj {
	t := col.Type
	p := obj{"format": t}
	switch {
	case strings.HasSuffix(t, "[]"):
		p["type"] = "array"
		p["items"] = obj{"type": "string"}
	case t == "integer" || t == "bigint" || t == "smallint":
		p["type"] = "integer"
	case t == "numeric" || t == "real" || t == "double precision" || strings.HasPrefix(t, "numeric("):
		p["type"] = "number"
	case t == "boolean":
		p["type"] = "boolean"
	case t == "json" || t == "jsonb":
		// any JSON value
	default:
		p["type"] = "string"
	}
	if col.Description != "" {
		p["description"] = col.Description
	}
	return p
}

func openAPI(sc *schema.Cache, sch, host string, vis *visible) obj {
	paths := obj{"/": obj{"get": obj{"tags": []string{"Introspection"}, "summary": "OpenAPI description (this document)",
		"produces": []string{"application/openapi+json", "application/json"}, "responses": obj{"200": obj{"description": "OK"}}}}}
	defs := obj{}
	for _, name := range sc.TableNames(sch) {
		t := sc.Table(sch, name)
		if !vis.tables[t.OID] {
			continue
		}
		defs[name] = tableDefinition(t)
		paths["/"+name] = tablePaths(t)
	}
	for _, name := range sc.FuncNames(sch) {
		for _, f := range sc.Funcs[schema.QI{Schema: sch, Name: name}] {
			if vis.funcs[f.OID] && f.Callable() {
				paths["/rpc/"+name] = funcPaths(f)
			}
		}
	}
	return obj{
		"swagger":     "2.0",
		"info":        obj{"title": "Labelbase REST API", "description": "PostgREST-compatible API over the '" + sch + "' schema", "version": "1"},
		"host":        host,
		"basePath":    "/rest/v1",
		"schemes":     []string{"http", "https"},
		"consumes":    []string{"application/json", "application/vnd.pgrst.object+json", "text/csv"},
		"produces":    []string{"application/json", "application/vnd.pgrst.object+json", "text/csv"},
		"paths":       paths,
		"definitions": defs,
	}
}

// readParams are the query and header parameters every table's GET takes.
var readParams = []obj{
	{"name": "select", "in": "query", "required": false, "type": "string", "description": "Filtering Columns"},
	{"name": "order", "in": "query", "required": false, "type": "string", "description": "Ordering"},
	{"name": "offset", "in": "query", "required": false, "type": "string", "description": "Limiting and Pagination"},
	{"name": "limit", "in": "query", "required": false, "type": "string", "description": "Limiting and Pagination"},
	{"name": "Range", "in": "header", "required": false, "type": "string", "description": "Limiting and Pagination"},
	{"name": "Prefer", "in": "header", "required": false, "type": "string", "enum": []string{"count=none", "count=exact", "count=planned", "count=estimated"}},
}

// tableDefinition is a table's definition: its columns' types, the
// required ones (not null, no default), primary keys noted.
func tableDefinition(t *schema.Table) obj {
	props := obj{}
	var required []string
	for _, c := range t.Columns {
		p := swaggerType(c)
		if contains(t.PK, c.Name) {
			desc, _ := p["description"].(string)
			p["description"] = strings.TrimSpace(desc + "\n\nNote:\nThis is a Primary Key.<pk/>")
		}
		props[c.Name] = p
		if !c.Nullable && c.Default == "" && !c.Identity && !c.Generated {
			required = append(required, c.Name)
		}
	}
	def := obj{"type": "object", "properties": props}
	if len(required) > 0 {
		def["required"] = required
	}
	if t.Description != "" {
		def["description"] = t.Description
	}
	return def
}

// tablePaths is a table's path item: GET, POST, PATCH and DELETE, with a
// row filter parameter per column.
func tablePaths(t *schema.Table) obj {
	name := t.Name
	var filters []obj
	for _, c := range t.Columns {
		filters = append(filters, obj{"name": c.Name, "in": "query", "required": false, "type": "string", "format": c.Type})
	}
	ref := obj{"$ref": "#/definitions/" + name}
	body := obj{"name": "body", "in": "body", "required": false, "schema": ref}
	ok := obj{"200": obj{"description": "OK", "schema": obj{"type": "array", "items": ref}}, "206": obj{"description": "Partial Content"}}
	return obj{
		"get":    obj{"tags": []string{name}, "parameters": append(append([]obj{}, filters...), readParams...), "responses": ok},
		"delete": obj{"tags": []string{name}, "parameters": filters, "responses": obj{"204": obj{"description": "No Content"}}},
		"post":   obj{"tags": []string{name}, "parameters": []obj{body}, "responses": obj{"201": obj{"description": "Created"}}},
		"patch": obj{"tags": []string{name}, "parameters": append([]obj{body}, filters...),
			"responses": obj{"204": obj{"description": "No Content"}}},
	}
}

// funcPaths is a callable function's /rpc path item: POST with its named
// parameters as the body, GET with them as query parameters.
func funcPaths(f *schema.Func) obj {
	props := obj{}
	var required []string
	var qparams []obj
	for _, p := range f.Params {
		if p.Name == "" {
			continue
		}
		props[p.Name] = swaggerType(&schema.Column{Name: p.Name, Type: p.Type})
		if !p.HasDefault {
			required = append(required, p.Name)
		}
		qparams = append(qparams, obj{"name": p.Name, "in": "query", "required": !p.HasDefault, "type": "string", "format": p.Type})
	}
	bodySchema := obj{"type": "object", "properties": props}
	if len(required) > 0 {
		bodySchema["required"] = required
	}
	tags := []string{"(rpc) " + f.Name}
	return obj{
		"post": obj{"tags": tags, "summary": f.Description,
			"parameters": []obj{{"name": "args", "in": "body", "required": true, "schema": bodySchema}},
			"responses":  obj{"200": obj{"description": "OK"}}},
		"get": obj{"tags": tags, "summary": f.Description, "parameters": qparams, "responses": obj{"200": obj{"description": "OK"}}},
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
