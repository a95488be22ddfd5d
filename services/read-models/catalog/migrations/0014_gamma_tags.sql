-- Gamma tags (categories; topic tapeline.tags.v1). Latest version per tag; read with FINAL.
CREATE TABLE IF NOT EXISTS gamma_tags
(
    tag_id       String,
    label        String,
    slug         String,
    force_show   Bool,
    created_at   Nullable(DateTime64(3, 'UTC')),
    updated_at   DateTime64(3, 'UTC'),
    source       LowCardinality(String),
    ingested_at  DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(ingested_at)
ORDER BY tag_id
SETTINGS non_replicated_deduplication_window = 1000;
