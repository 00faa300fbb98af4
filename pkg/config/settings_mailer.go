package config

import "time"

// mailerGroup: the auth mails, under GoTrue's names.
var mailerGroup = group{
	title: "Mailer",
	doc: "The auth mails (recovery, magic links and codes, confirmations, invites, email change, reauthentication), " +
		"under GoTrue's names. Without `SMTP_HOST` and without `MAIL_DEV_INBOX` mail is off: start-up says so, and the " +
		"mailing endpoints answer as GoTrue does with its no-op mailer (the flow runs, nothing is sent; " +
		"`MAILER_AUTOCONFIRM=false` is refused, since no one could confirm).",
	settings: []setting{
		text("SMTP_HOST", "", func(c *Config) *string { return &c.SMTPHost },
			"Mail server. Port 465 means implicit TLS, others STARTTLS when offered."),
		integer("SMTP_PORT", 587, func(c *Config) *int { return &c.SMTPPort },
			"Mail server port."),
		text("SMTP_USER", "", func(c *Config) *string { return &c.SMTPUser },
			"SMTP user name; credentials are sent only when it is set."),
		secret("SMTP_PASS", func(c *Config) *string { return &c.SMTPPass },
			"SMTP password."),
		text("SMTP_ADMIN_EMAIL", "", func(c *Config) *string { return &c.SMTPAdminEmail },
			"The From address; required with `SMTP_HOST`."),
		text("SMTP_SENDER_NAME", "Labelbase", func(c *Config) *string { return &c.SMTPSenderName },
			"The From name."),
		seconds("SMTP_MAX_FREQUENCY", 60*time.Second, func(c *Config) *time.Duration { return &c.SMTPMaxFrequency },
			"Seconds before the same address is mailed the same kind of mail again: `/recover`, `/otp` and `/resend` "+
				"give the same answer and send nothing (so the answer tells nobody whether an account exists); "+
				"`/reauthenticate` and an email change answer GoTrue's 429 `over_email_send_rate_limit`."),
		seconds("MAILER_OTP_EXP", 3600*time.Second, func(c *Config) *time.Duration { return &c.MailerOTPExp },
			"Seconds a mailed link or six-digit code stays valid (60–86400)."),
		boolean("MAILER_AUTOCONFIRM", true, func(c *Config) *bool { return &c.MailerAutoconfirm },
			"Sign-ups are confirmed at once and get a session, and an email change applies at once; `false` mails a "+
				"confirmation link and code first (needs mail)."),
		boolean("MAILER_SECURE_EMAIL_CHANGE_ENABLED", true, func(c *Config) *bool { return &c.MailerSecureEmailChange },
			"With `MAILER_AUTOCONFIRM=false`, an email change is confirmed from both the old and the new address."),
		boolean("MAIL_DEV_INBOX", false, func(c *Config) *bool { return &c.MailDevInbox },
			"Capture mail in memory and show it at `/_dev/inbox` instead of sending it; development only "+
				"(`labelbase dev` turns it on when `SMTP_HOST` is unset)."),
	},
	validate: func(c *Config, p *parser) {
		if c.SMTPHost != "" && c.SMTPAdminEmail == "" {
			p.fail("SMTP_ADMIN_EMAIL (the From address) is required when SMTP_HOST is set")
		}
		if c.SMTPPort < 1 || c.SMTPPort > 65535 {
			p.fail("SMTP_PORT must be a TCP port")
		}
		if c.MailerOTPExp < time.Minute || c.MailerOTPExp > 24*time.Hour {
			p.fail("MAILER_OTP_EXP must be between 60 and 86400 seconds")
		}
		if c.SMTPMaxFrequency < 0 {
			p.fail("SMTP_MAX_FREQUENCY must not be negative")
		}
		if !c.MailerAutoconfirm && c.SMTPHost == "" && !c.MailDevInbox {
			p.fail("MAILER_AUTOCONFIRM=false needs mail (SMTP_HOST or MAIL_DEV_INBOX): confirmation links could not be sent")
		}
	},
}
