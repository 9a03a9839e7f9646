package config

// testProviders are MAILBOT_PROVIDER's values in these tests.
var testProviders = []string{"pdd", "yandex360", "mailcow"}

// loadConfig is Load with the tests' providers.
func loadConfig(lookup func(string) (string, bool), sub string) (*Config, error) {
	return Load(lookup, sub, testProviders)
}

func envFrom(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}
}
