package app

import (
	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/mail"
)

// withInbox adds the auth routes that need no API key (the recovery link)
// and, when mail is captured, the dev inbox page (GET /_dev/inbox); without
// MAIL_DEV_INBOX that path does not exist.
func withInbox(routes func(*echo.Echo), in *mail.Inbox, open func(*echo.Echo)) func(*echo.Echo) {
	return func(e *echo.Echo) {
		routes(e)
		open(e)
		if in != nil {
			e.GET("/_dev/inbox", echo.WrapHandler(in))
		}
	}
}
