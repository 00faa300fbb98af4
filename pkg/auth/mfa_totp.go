package auth

import (
	"crypto/subtle"
	"fmt"
	"strings"
	"time"

	"github.com/boombuler/barcode/qr"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

// GoTrue's TOTP parameters, which every authenticator app assumes: six
// digits, SHA-1, a 30-second step, one step of clock skew either way.
const (
	totpPeriod = 30
	totpSkew   = 1
)

var totpOpts = totp.ValidateOpts{Period: totpPeriod, Skew: totpSkew, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// newTOTPKey makes a factor's secret and its otpauth:// URI.
func newTOTPKey(issuer, account string) (*otp.Key, error) {
	return totp.Generate(totp.GenerateOpts{Issuer: issuer, AccountName: account, Period: totpPeriod,
		Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
}

// acceptTOTP reports the time step code is valid for at now, if it is
// valid for one later than lastUsed (nil: none used yet). Codes come from
// pquerna/otp; this only tries the steps in the skew window one by one,
// because otp's own Validate does not say which step matched, and the
// step is what makes a code single-use (RFC 6238 section 5.2).
func acceptTOTP(secret, code string, now time.Time, lastUsed *int64) (int64, bool) {
	if len(code) != int(otp.DigitsSix) || strings.Trim(code, "0123456789") != "" {
		return 0, false
	}
	current := now.Unix() / totpPeriod
	for step := current - totpSkew; step <= current+totpSkew; step++ {
		if lastUsed != nil && step <= *lastUsed {
			continue
		}
		want, err := totp.GenerateCodeCustom(secret, time.Unix(step*totpPeriod, 0).UTC(), totpOpts)
		if err != nil {
			return 0, false
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			return step, true
		}
	}
	return 0, false
}

// qrSVG draws uri as an SVG QR code, which GoTrue sends raw and auth-js
// turns into a data: URI without escaping it, so the SVG must not contain
// '#' (it would end the URI there) or '%'. boombuler/barcode (the encoder pquerna/otp
// itself uses) computes the modules; drawing them is one path of unit
// squares, written here rather than pulling in an SVG library for it.
func qrSVG(uri string) (string, error) {
	code, err := qr.Encode(uri, qr.M, qr.Auto)
	if err != nil {
		return "", err
	}
	const quiet = 4 // modules of white border scanners need
	b := code.Bounds()
	n := b.Dx() + 2*quiet
	var path strings.Builder
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if r, _, _, _ := code.At(x, y).RGBA(); r < 0x8000 {
				fmt.Fprintf(&path, "M%d %dh1v1h-1z", x-b.Min.X+quiet, y-b.Min.Y+quiet)
			}
		}
	}
	return fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" shape-rendering="crispEdges">`+
		`<rect width="%d" height="%d" fill="white"/><path fill="black" d="%s"/></svg>`,
		n, n, n*4, n*4, n, n, path.String()), nil
}
