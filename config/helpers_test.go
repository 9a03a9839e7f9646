package config

// testProviders are MAILBOT_PROVIDER's values in these tests.
var testProviders = []Provider{{Name: "pdd", Title: "the PDD API"}, {Name: "yandex360", Title: "Yandex 360"}, {Name: "mailcow", Title: "mailcow"},
	{Name: "google", Title: "Google Workspace", MinPassword: 8}, {Name: "m365", Title: "Microsoft 365", MinPassword: 8}}

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
