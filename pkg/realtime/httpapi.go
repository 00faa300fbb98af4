package realtime

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/apierr"
)

// httpCaller resolves who sends an HTTP broadcast: the bearer token, else
// the apikey, judged as on the socket.
func (s *Service) httpCaller(c *echo.Context) (*caller, error) {
	tok := ""
	if scheme, t, ok := strings.Cut(c.Request().Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "bearer") {
		tok = strings.TrimSpace(t)
	}
	who, reason := s.authenticate(tok, apikeyOf(c))
	if reason != "" {
		return nil, apierr.New(http.StatusUnauthorized, "invalid_jwt", "%s", reason)
	}
	return who, nil
}

// mayWrite says whether who may broadcast on a private topic (the INSERT
// policy of realtime.messages).
func (s *Service) mayWrite(c *echo.Context, topic string, who *caller) (bool, error) {
	pol, reason := s.authorize(c.Request().Context(), topic, who)
	if reason != "" {
		return false, apierr.New(http.StatusServiceUnavailable, "unable_to_authorize", "%s", reason)
	}
	return pol.BroadcastWrite, nil
}

func (s *Service) readBody(c *echo.Context) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(c.Request().Body, int64(s.cfg.MaxMessageBytes)+1))
	if err != nil {
		return nil, apierr.New(http.StatusBadRequest, "bad_body", "The request body could not be read")
	}
	if len(b) > s.cfg.MaxMessageBytes {
		return nil, apierr.New(http.StatusRequestEntityTooLarge, "payload_too_large", "Payload Too Large: at most %d bytes", s.cfg.MaxMessageBytes)
	}
	return b, nil
}

// broadcastOne is POST /api/broadcast/{topic}/events/{event}[?private=true],
// what realtime-js's httpSend calls: a JSON body is the payload; an
// application/octet-stream body is sent as bytes and reaches 2.0.0
// clients as binary frames. 202 once it is on its way.
func (s *Service) broadcastOne(c *echo.Context) error {
	topic, err1 := url.PathUnescape(c.Param("topic"))
	event, err2 := url.PathUnescape(c.Param("event"))
	if err1 != nil || err2 != nil || topic == "" || event == "" {
		return apierr.New(http.StatusBadRequest, "invalid_topic", "The topic and event must be non-empty and URL-encoded")
	}
	private := c.QueryParam("private") == "true"
	who, err := s.httpCaller(c)
	if err != nil {
		return err
	}
	body, err := s.readBody(c)
	if err != nil {
		return err
	}
	env := envelope{Kind: "broadcast", Topic: topic, Private: private, Event: event}
	mt, _, _ := mime.ParseMediaType(c.Request().Header.Get("Content-Type"))
	switch {
	case mt == "application/octet-stream":
		env.Binary = body
		if env.Binary == nil {
			env.Binary = []byte{}
		}
	case mt == "" || mt == "application/json" || strings.HasSuffix(mt, "+json"):
		if !json.Valid(body) {
			return apierr.New(http.StatusBadRequest, "invalid_json", "The body is not valid JSON")
		}
		env.Payload = body
	default:
		return apierr.New(http.StatusUnsupportedMediaType, "unsupported_media_type", "Send application/json or application/octet-stream")
	}
	if private {
		ok, err := s.mayWrite(c, topic, who)
		if err != nil {
			return err
		}
		if !ok {
			return apierr.New(http.StatusForbidden, "unauthorized", "Unauthorized: You do not have permissions to write to this Channel topic: %s", topic)
		}
	}
	if err := s.publish(c.Request().Context(), env); err != nil {
		return apierr.Internal(err)
	}
	return c.NoContent(http.StatusAccepted)
}

// broadcastBatch is POST /api/broadcast {messages: [{topic, event,
// payload, private}]}. As on Supabase, a message to a private topic the
// caller may not write to is skipped, not refused: the answer is 202.
func (s *Service) broadcastBatch(c *echo.Context) error {
	who, err := s.httpCaller(c)
	if err != nil {
		return err
	}
	body, err := s.readBody(c)
	if err != nil {
		return err
	}
	var req struct {
		Messages []struct {
			Topic   string          `json:"topic"`
			Event   string          `json:"event"`
			Payload json.RawMessage `json:"payload"`
			Private bool            `json:"private"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return apierr.New(http.StatusBadRequest, "invalid_json", "The body must be {\"messages\": [{topic, event, payload, private}]}")
	}
	if len(req.Messages) == 0 {
		return apierr.New(http.StatusUnprocessableEntity, "invalid_messages", "messages: can't be blank")
	}
	for i, m := range req.Messages {
		var obj map[string]json.RawMessage
		if m.Topic == "" || m.Event == "" || json.Unmarshal(m.Payload, &obj) != nil || obj == nil {
			return apierr.New(http.StatusUnprocessableEntity, "invalid_messages", "messages[%d]: topic, event and an object payload are required", i)
		}
	}
	for _, m := range req.Messages {
		if m.Private {
			ok, err := s.mayWrite(c, m.Topic, who)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
		}
		env := envelope{Kind: "broadcast", Topic: m.Topic, Private: m.Private, Event: m.Event, Payload: m.Payload}
		if err := s.publish(c.Request().Context(), env); err != nil {
			return apierr.Internal(err)
		}
	}
	return c.NoContent(http.StatusAccepted)
}
