module github.com/mailbot/mailbot

go 1.26.0

require (
	github.com/kelseyhightower/envconfig v1.4.0
	go.uber.org/zap v1.28.0
)

require (
	github.com/stretchr/testify v1.12.1 // indirect
	go.uber.org/multierr v1.10.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
