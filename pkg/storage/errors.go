package storage

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/labelbase/labelbase/pkg/apierr"
)

// statusClientClosed is nginx's 499, for a request whose client left.
const statusClientClosed = 499

// storageErr builds supabase/storage's error: HTTP 400 for every refusal
// (the real status travels as the body's statusCode string, which
// storage-js reads), its ErrorCode as code and its legacy error string.
func storageErr(status int, code, legacy, msg string) *apierr.Error {
	return &apierr.Error{Status: http.StatusBadRequest, Code: code, Message: msg,
		Fields: map[string]any{"statusCode": strconv.Itoa(status), "error": legacy}}
}

func errBucketNotFound() *apierr.Error {
	return storageErr(404, "NoSuchBucket", "Bucket not found", "Bucket not found")
}

func errObjectNotFound() *apierr.Error {
	return storageErr(404, "NoSuchKey", "not_found", "Object not found")
}

func errDuplicate(code string) *apierr.Error {
	return storageErr(409, code, "Duplicate", "The resource already exists")
}

func errTooLarge() *apierr.Error {
	return storageErr(413, "EntityTooLarge", "Payload too large", "The object exceeded the maximum allowed size")
}

func errMime(mime string) *apierr.Error {
	return storageErr(415, "InvalidMimeType", "invalid_mime_type", "mime type "+mime+" is not supported")
}

func errInvalidKey(key string) *apierr.Error {
	return storageErr(400, "InvalidKey", "InvalidKey", "Invalid key: "+key)
}

func errBucketName() *apierr.Error {
	return storageErr(400, "InvalidBucketName", "Invalid Input", "Bucket name invalid")
}

func errInvalid(msg string) *apierr.Error {
	return storageErr(400, "InvalidRequest", "Invalid Input", msg)
}

func errNotEmpty() *apierr.Error {
	return storageErr(409, "ResourceNotEmpty", "ResourceNotEmpty", "The bucket you tried to delete is not empty")
}

// errAccessDenied is the refusal of a missing or unacceptable JWT;
// storage-js's own tests expect jose's "Invalid Compact JWS" for none.
func errAccessDenied(msg string) *apierr.Error {
	return storageErr(403, "AccessDenied", "Unauthorized", msg)
}

func errSignedToken(code, msg string) *apierr.Error {
	return storageErr(400, code, code, msg)
}

// errRLS is a policy refusal. Upstream says only "new row violates
// row-level security policy"; the message here also names the operation
// that was refused (INSERT, UPDATE, SELECT, DELETE), because the usual
// surprise is that an upsert needs three policies, not one.
func errRLS(op string, cause error) *apierr.Error {
	msg := "new row violates row-level security policy"
	if op != "" {
		msg += " (" + op + " refused)"
	}
	return storageErr(403, "AccessDenied", "Unauthorized", msg).WithCause(cause)
}

// pgErr translates a PostgreSQL error once, at the store boundary, naming
// the command (op) for a policy refusal.
func pgErr(op string, err error) error {
	var e *apierr.Error
	if errors.As(err, &e) {
		return e
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "42501":
			return errRLS(rlsCommand(op, pe.Message), err)
		case "23505":
			if strings.Contains(pe.ConstraintName, "bname") || pe.TableName == "buckets" {
				return errDuplicate("BucketAlreadyExists").WithCause(err)
			}
			return errDuplicate("KeyAlreadyExists").WithCause(err)
		case "23503":
			return errBucketNotFound().WithCause(err)
		case "57014":
			return storageErr(544, "DatabaseTimeout", "DatabaseTimeout", "The connection to the database timed out").WithCause(err)
		case "22P02", "22023", "23514":
			return errInvalid(pe.Message).WithCause(err)
		}
	}
	if errors.Is(err, context.Canceled) {
		// The client went away (a browser dropping a signing request as a
		// page changes): nginx's 499, as /rest/v1 and /auth/v1 log it, not
		// a server fault.
		return apierr.New(statusClientClosed, "RequestCanceled", "Request canceled").WithCause(err)
	}
	return apierr.Internal(fmt.Errorf("storage: %s: %w", op, err))
}

// rlsCommand reads which command PostgreSQL refused from its message
// ("... policy for table", "new row violates ... (USING expression)" on an
// update), falling back to the operation's own.
func rlsCommand(op, msg string) string {
	if strings.Contains(msg, "USING expression") {
		return "UPDATE"
	}
	if strings.HasPrefix(msg, "permission denied") {
		return op + " (privilege)"
	}
	return op
}
