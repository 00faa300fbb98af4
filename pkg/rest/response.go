package rest

// Response details SQL may set: response.headers and response.status.

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/rest/pgrst"
)

// applyGUCs applies response.headers and response.status set by SQL.
func applyGUCs(h http.Header, res *result, status int) (int, error) {
	if res.headers != "" {
		var list []map[string]any
		if err := json.Unmarshal([]byte(res.headers), &list); err != nil {
			return 0, gucHeadersError()
		}
		for _, m := range list {
			if len(m) != 1 {
				return 0, gucHeadersError()
			}
			for k, v := range m {
				s, ok := v.(string)
				if !ok || !sqlHeaderAllowed(k, s) {
					return 0, gucHeadersError()
				}
				h.Set(k, s)
			}
		}
	}
	if res.status != "" {
		n, err := strconv.Atoi(strings.TrimSpace(res.status))
		if err != nil || n < 100 || n > 599 {
			return 0, apierr.New(http.StatusInternalServerError, pgrst.CodeGUCStatus, "response.status guc must be a valid status code")
		}
		status = n
	}
	return status, nil
}

func gucHeadersError() *apierr.Error {
	return apierr.New(http.StatusInternalServerError, pgrst.CodeGUCHeaders, "response.headers guc must be a JSON array composed of objects with a single key and a string value")
}
