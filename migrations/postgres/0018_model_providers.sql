-- An organization's model providers, for evals: an OpenAI-compatible Chat
-- Completions endpoint and a model. The API key is sealed under the
-- console's secret key (ChaCha20-Poly1305: nonce and ciphertext, base64)
-- and never shown again; its last four characters tell keys apart.
CREATE TABLE model_providers (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    org_id     BIGINT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name       TEXT   NOT NULL,
    base_url   TEXT   NOT NULL,
    model      TEXT   NOT NULL,
    key_sealed TEXT   NOT NULL,
    key_last4  TEXT   NOT NULL,
    created_by BIGINT REFERENCES developers (id) ON DELETE SET NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (org_id, name)
);
