package oci

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/opencontainers/go-digest"

	"github.com/contextsubstrate/ctx/lib/text"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"
	"oras.land/oras-go/v2/registry/remote/errcode"
	"oras.land/oras-go/v2/registry/remote/retry"
)

// Options say how to reach registries and how to report progress.
type Options struct {
	// PlainHTTP talks HTTP instead of HTTPS, for a loopback or lab
	// registry without TLS.
	PlainHTTP bool
	// Config is the Docker configuration file that holds the logins
	// (docker login, oras login) and names the credential helpers; ""
	// for $DOCKER_CONFIG/config.json, else ~/.docker/config.json.
	Config string
	// Username and Password, when Username is set, are the login for
	// every registry, instead of the configuration's.
	Username, Password string
	// Concurrency is how many blobs move at once; 0 for the default.
	Concurrency int
	// Progress, when set, is called as blobs move.
	Progress func(Progress)
	// UserAgent names the client to the registry.
	UserAgent string
	// NoAttestations leaves a pack's attestations behind: Push sends no
	// referrer, Pull asks for none. So does Attestations nil.
	NoAttestations bool
	// Attestations is how attestations are read and stored
	// (lib/oci/ociattest); nil moves none.
	Attestations *Attestations
}

// movesAttestations says whether a pack's attestations go with it.
func (o Options) movesAttestations() bool { return !o.NoAttestations && o.Attestations != nil }

// Progress is how far a push or pull has come.
type Progress struct {
	Done, Total int   // blobs handled (moved or skipped), of all
	Bytes       int64 // bytes moved so far
}

// Show has the progress of a push or a pull shown by show (a terminal's
// progress line) as "VERB: N of M blobs, SIZE MOVED": "pushing", "sent"
// or "pulling", "received".
func (o *Options) Show(show func(format string, args ...any), verb, moved string) {
	o.Progress = func(p Progress) {
		show("%s: %d of %d blobs, %s %s", verb, p.Done, p.Total, text.Size(p.Bytes), moved)
	}
}

const defaultConcurrency = 8

func (o Options) concurrency() int {
	if o.Concurrency > 0 {
		return o.Concurrency
	}
	return defaultConcurrency
}

// Ref is a reference to a repository of a registry and, optionally, a tag
// or a digest in it: host[:port]/repo[:tag|@sha256:hex].
type Ref struct {
	Registry   string
	Repository string
	Tag        string
	Digest     string
}

// ParseRef parses a reference. The registry is always named: there is no
// default registry, as docker.io is for docker.
func ParseRef(s string) (Ref, error) {
	if strings.Contains(s, "://") {
		return Ref{}, fmt.Errorf("%q is a URL; a reference is host[:port]/repository[:tag] (use --plain-http for http)", s)
	}
	r, err := registry.ParseReference(s)
	if err != nil {
		return Ref{}, fmt.Errorf("%q is not a reference host[:port]/repository[:tag|@sha256:hex]: %v", s, err)
	}
	if !strings.Contains(s, "/") {
		return Ref{}, fmt.Errorf("%q names no repository; a reference is host[:port]/repository[:tag]", s)
	}
	out := Ref{Registry: r.Registry, Repository: r.Repository}
	if _, err := r.Digest(); err == nil {
		out.Digest = r.Reference
	} else {
		out.Tag = r.Reference
	}
	return out, nil
}

// String writes the reference back: host/repo:tag, host/repo@digest or
// host/repo.
func (r Ref) String() string {
	s := r.Registry + "/" + r.Repository
	switch {
	case r.Digest != "":
		return s + "@" + r.Digest
	case r.Tag != "":
		return s + ":" + r.Tag
	}
	return s
}

// at is where an artifact of digest d pushed to r is: r with its tag, or
// r's repository at d when r has none.
func (r Ref) at(d digest.Digest) string {
	if r.Tag != "" {
		return r.String()
	}
	return Ref{Registry: r.Registry, Repository: r.Repository, Digest: d.String()}.String()
}

// CheckTag checks a tag for a registry (letters, digits, _ . -; at most
// 128, not starting with . or -).
func CheckTag(tag string) error {
	r := registry.Reference{Registry: "h", Repository: "r", Reference: tag}
	if err := r.ValidateReferenceAsTag(); err != nil {
		return fmt.Errorf("%q is not a valid tag: letters, digits, '_', '.' and '-', at most 128, not starting with '.' or '-'", tag)
	}
	return nil
}

// client is a repository and what the connection to it knows.
type client struct {
	repo    *remote.Repository
	ref     Ref
	opts    Options
	hasCred atomic.Bool // a login was found for the registry and offered
}

// connect makes the client of ref's repository, with the logins of the
// Docker configuration (or opts' own) and retries of transient faults.
func connect(ref Ref, opts Options) (*client, error) {
	c := &client{ref: ref, opts: opts}
	var lookup auth.CredentialFunc
	if opts.Username != "" {
		cred := auth.Credential{Username: opts.Username, Password: opts.Password}
		lookup = func(context.Context, string) (auth.Credential, error) { return cred, nil }
	} else {
		var store credentials.Store
		var err error
		if opts.Config != "" {
			store, err = credentials.NewStore(opts.Config, credentials.StoreOptions{})
		} else {
			store, err = credentials.NewStoreFromDocker(credentials.StoreOptions{})
		}
		if err != nil {
			return nil, fmt.Errorf("cannot read the registry logins: %v", err)
		}
		lookup = credentials.Credential(store)
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	// Every blob worker keeps its connection between requests.
	transport.MaxIdleConnsPerHost = opts.concurrency() + 2
	ac := &auth.Client{
		Client: &http.Client{Transport: retry.NewTransport(transport)},
		Cache:  auth.NewCache(),
		Credential: func(ctx context.Context, host string) (auth.Credential, error) {
			cred, err := lookup(ctx, host)
			if err == nil && cred != auth.EmptyCredential {
				c.hasCred.Store(true)
			}
			return cred, err
		},
	}
	if opts.UserAgent != "" {
		ac.SetUserAgent(opts.UserAgent)
	}
	c.repo = &remote.Repository{
		Client:    ac,
		Reference: registry.Reference{Registry: ref.Registry, Repository: ref.Repository},
		PlainHTTP: opts.PlainHTTP,
	}
	return c, nil
}

// RegistryError says a registry could not be reached or refused a request.
// It names the registry and what was tried, and never a credential.
type RegistryError struct {
	Registry   string
	Repository string
	Status     int  // the HTTP status of the refusal; 0 when the registry was not reached
	PlainHTTP  bool // the request was plain HTTP
	LoggedIn   bool // a login was found for the registry and offered
	Err        error
}

func (e *RegistryError) Error() string {
	scheme := "HTTPS"
	if e.PlainHTTP {
		scheme = "HTTP"
	}
	switch e.Status {
	case 0:
		return fmt.Sprintf("cannot reach the registry %s over %s: %v", e.Registry, scheme, e.Err)
	case http.StatusUnauthorized:
		if e.LoggedIn {
			return fmt.Sprintf("the registry %s refused the login it was given for %s (401 Unauthorized)", e.Registry, e.Repository)
		}
		return fmt.Sprintf("the registry %s wants a login for %s (401 Unauthorized)", e.Registry, e.Repository)
	case http.StatusForbidden:
		return fmt.Sprintf("the registry %s denied access to %s (403 Forbidden)", e.Registry, e.Repository)
	}
	return fmt.Sprintf("the registry %s: %v", e.Registry, e.Err)
}

// Unwrap returns the cause.
func (e *RegistryError) Unwrap() error { return e.Err }

// ErrorHints say what to do about the error (cli.Report prints them).
func (e *RegistryError) ErrorHints() []string {
	switch {
	case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden:
		return []string{
			fmt.Sprintf("log in with 'docker login %s' or 'oras login %s': ctx reads the logins of ~/.docker/config.json ($DOCKER_CONFIG) and its credential helpers, or of the file --registry-config names", e.Registry, e.Registry),
			"or give a login in CTX_REGISTRY_USERNAME and CTX_REGISTRY_PASSWORD",
		}
	case e.Status == 0 && isPlainHTTPAnswer(e.Err):
		return []string{fmt.Sprintf("the registry %s speaks plain HTTP: add --plain-http (or set CTX_PLAIN_HTTP=1)", e.Registry)}
	case e.Status == 0 && isTLSError(e.Err):
		return []string{"the registry's TLS certificate is not trusted here: add its CA to the system's (or SSL_CERT_FILE), or use --plain-http for a registry without TLS"}
	case e.Status == 0 && e.PlainHTTP:
		return []string{"check that the registry is running and the host and port are right"}
	case e.Status == 0:
		return []string{"check that the registry is running and the host and port are right; a registry without TLS needs --plain-http"}
	}
	return nil
}

// fail turns an error of the registry protocol into a *RegistryError when
// it is one of reaching or refusing; other errors pass through.
func (c *client) fail(err error) error {
	if err == nil {
		return nil
	}
	var already *RegistryError
	if errors.As(err, &already) {
		return err
	}
	re := &RegistryError{Registry: c.ref.Registry, Repository: c.ref.Repository, PlainHTTP: c.opts.PlainHTTP, LoggedIn: c.hasCred.Load(), Err: err}
	var resp *errcode.ErrorResponse
	var ue *url.Error
	switch {
	case errors.Is(err, auth.ErrBasicCredentialNotFound):
		// The registry asked for a login (401 with a Basic challenge) and
		// none was found for it.
		re.Status = http.StatusUnauthorized
	case errors.As(err, &resp) && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden):
		re.Status = resp.StatusCode
	case errors.As(err, &resp):
		re.Status = resp.StatusCode
		re.Err = fmt.Errorf("%s %s: %d %s%s", resp.Method, resp.URL.Redacted(), resp.StatusCode, http.StatusText(resp.StatusCode), registryMessage(resp))
	case errors.As(err, &ue) && !errors.Is(err, context.Canceled):
		re.Err = fmt.Errorf("%s %s: %v", ue.Op, redact(ue.URL), cause(ue.Err))
	default:
		return err
	}
	return re
}

// registryMessage is the registry's own words for an error, shortened.
func registryMessage(resp *errcode.ErrorResponse) string {
	if len(resp.Errors) == 0 {
		return ""
	}
	return ": " + shown(resp.Errors[0].Message)
}

// cause is the innermost useful error of a failed request: the dial error
// rather than the wrapping of every layer.
func cause(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return fmt.Errorf("%s %s: %v", op.Op, op.Addr, op.Err)
	}
	return err
}

func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(a URL)"
	}
	return u.Redacted()
}

func isPlainHTTPAnswer(err error) bool {
	return err != nil && strings.Contains(err.Error(), "server gave HTTP response to HTTPS client")
}

func isTLSError(err error) bool {
	var ua x509.UnknownAuthorityError
	var hn x509.HostnameError
	var ci x509.CertificateInvalidError
	var rh tls.RecordHeaderError
	return errors.As(err, &ua) || errors.As(err, &hn) || errors.As(err, &ci) || errors.As(err, &rh)
}

// isNotFound reports whether the registry said it has no such thing.
func isNotFound(err error) bool { return errors.Is(err, errdef.ErrNotFound) }
