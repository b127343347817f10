// Package config loads deja's settings through viper: built-in defaults,
// then $XDG_CONFIG_HOME/deja/config.toml, then DEJA_* environment variables
// (key a.b is DEJA_A_B), then command-line flags. It also resolves the XDG
// paths deja uses. Other packages receive plain values, never viper.
package config
