#pragma once
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

// Macros over SSL_ctrl / SSL_CTX_ctrl do not import into Swift; these wrap the ones the
// Redis TLS transport uses.

static inline int copenssl_set_min_tls12(SSL_CTX *ctx) {
    return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}

static inline int copenssl_set_sni(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

static inline long copenssl_set_modes(SSL *ssl) {
    return SSL_set_mode(ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}
