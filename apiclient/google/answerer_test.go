package google_test

import (
	"testing"

	"github.com/mailbot/mailbot/commands/providertest"
)

func providertestAnswerer(t *testing.T) *providertest.Answerer { return providertest.NewAnswerer(t) }
