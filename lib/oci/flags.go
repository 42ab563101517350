package oci

import (
	"errors"
	"flag"
	"fmt"
	"os"
)

// PasswordEnv holds the password for --registry-username. It is never a
// flag, so a password is never in a process listing or a shell history.
const PasswordEnv = "CTX_REGISTRY_PASSWORD"

// RegisterFlags adds the flags of ctx push and ctx pull: those of
// RegisterAccessFlags and --no-attestations (CTX_NO_ATTESTATIONS).
func (o *Options) RegisterFlags(fs *flag.FlagSet) {
	o.RegisterAccessFlags(fs)
	fs.BoolVar(&o.NoAttestations, "no-attestations", false, "leave the packs' signed attestations behind (they travel as OCI referrers of each pack)")
}

// RegisterAccessFlags adds the flags that say how to reach a registry:
// --plain-http (CTX_PLAIN_HTTP), --registry-config (CTX_REGISTRY_CONFIG)
// and --registry-username (CTX_REGISTRY_USERNAME). ctx suite push, pull
// and diff take these.
func (o *Options) RegisterAccessFlags(fs *flag.FlagSet) {
	fs.BoolVar(&o.PlainHTTP, "plain-http", false, "talk plain HTTP to the registry, not HTTPS (a loopback or lab registry)")
	fs.StringVar(&o.Config, "registry-config", "", "the Docker config `FILE` holding the registry logins (default: $DOCKER_CONFIG/config.json, else ~/.docker/config.json)")
	fs.StringVar(&o.Username, "registry-username", "", "log in as the user `NAME`, with the password in "+PasswordEnv+", instead of the config file's login")
}

// Login completes the options after the flags are parsed: the password
// of --registry-username from its environment variable.
func (o *Options) Login() error {
	o.Password = os.Getenv(PasswordEnv)
	switch {
	case o.Username != "" && o.Password == "":
		return fmt.Errorf("--registry-username needs the password in %s", PasswordEnv)
	case o.Username == "" && o.Password != "":
		return errors.New(PasswordEnv + " is set but no --registry-username (CTX_REGISTRY_USERNAME) names the user")
	}
	return nil
}

// Targets returns the reference each of n packs is pushed to: ref itself
// for one pack; ref's repository with the tags given, one per pack, in
// order; or ref's repository untagged for each.
func Targets(ref Ref, n int, tags []string) ([]Ref, error) {
	switch {
	case ref.Digest != "":
		return nil, fmt.Errorf("%s names a digest; push to a repository (host/repo) or a tag (host/repo:tag)", ref)
	case len(tags) > 0 && ref.Tag != "":
		return nil, fmt.Errorf("%s has a tag already; give either the tag in the reference or --tag", ref)
	case len(tags) > 0 && len(tags) != n:
		return nil, fmt.Errorf("%d --tag for %d packs: give one --tag per pack, in the order of the packs", len(tags), n)
	case n > 1 && ref.Tag != "":
		return nil, fmt.Errorf("%s has one tag for %d packs: push to the repository (host/repo), with one --tag per pack if wanted", ref, n)
	}
	out := make([]Ref, n)
	for i := range out {
		out[i] = ref
		if len(tags) > 0 {
			if err := CheckTag(tags[i]); err != nil {
				return nil, err
			}
			out[i].Tag = tags[i]
		}
	}
	return out, nil
}
