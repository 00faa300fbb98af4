package app

import (
	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/mail"
)

// withInbox adds the dev inbox page (GET /_dev/inbox) when mail is
// captured; without MAIL_DEV_INBOX the path does not exist.
func withInbox(routes func(*echo.Echo), in *mail.Inbox) func(*echo.Echo) {
	if in == nil {
		return routes
	}
	return func(e *echo.Echo) {
		routes(e)
		e.GET("/_dev/inbox", echo.WrapHandler(in))
	}
}
