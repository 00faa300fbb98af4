package backend

import (
	"context"
	"errors"
)

// S3Options configure the S3-compatible backend.
type S3Options struct {
	Endpoint, Region, Bucket, AccessKey, SecretKey string
	PathStyle                                      bool
}

// NewS3 connects to an S3-compatible store.
func NewS3(_ context.Context, _ S3Options) (Backend, error) {
	return nil, errors.New("backend: the S3 backend is not available in this build")
}
