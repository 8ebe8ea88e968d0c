/**
 * The Switchboard server: the native HTTP API, the SQS-compatible API, the web console, access
 * keys, metrics and tracing, over the in-memory, RocksDB and PostgreSQL engines, on Helidon.
 *
 * <p>The main code is compiled as this module, so javac checks what it requires and reads; the
 * server still starts on the class path (the launcher's start script), and its tests run there
 * (docs/decisions.md, 2026-11-26). {@code io.switchboard.server.auth} and {@code
 * io.switchboard.server.sqs} are exported because the embedding API of {@code
 * io.switchboard.server} names some of their types.
 */
@SuppressWarnings("requires-automatic")
module io.switchboard.server {
  requires transitive io.switchboard.core;
  requires transitive io.switchboard.client;
  requires transitive io.switchboard.storage.rocksdb;
  requires transitive io.switchboard.storage.postgres;
  requires transitive io.helidon.webserver;
  requires io.helidon.http;
  requires io.helidon.common.buffers;
  requires io.helidon.common.configurable;
  requires io.helidon.common.pki;
  requires io.helidon.common.socket;
  requires io.helidon.common.tls;
  requires com.fasterxml.jackson.annotation;
  requires com.fasterxml.jackson.core;
  requires com.fasterxml.jackson.databind;
  requires com.fasterxml.jackson.dataformat.yaml;
  requires org.yaml.snakeyaml; // InitFile reads the position of a YAML error
  requires java.naming; // Authentication reads a client certificate's subject (LdapName)
  requires java.net.http;
  requires org.slf4j;
  requires jul.to.slf4j;
  // Automatic modules: the names their jars declare (Automatic-Module-Name).
  requires micrometer.core;
  requires micrometer.registry.prometheus;
  requires io.opentelemetry.api;
  requires io.opentelemetry.context;
  requires io.opentelemetry.sdk;
  requires io.opentelemetry.sdk.autoconfigure;
  requires io.opentelemetry.sdk.autoconfigure.spi;
  requires static org.jspecify;

  exports io.switchboard.server;
  // In the signatures of io.switchboard.server's public classes (ServerConfig's access keys and
  // SQS account, SwitchboardServer's key ring), so exported with it.
  exports io.switchboard.server.auth;
  exports io.switchboard.server.sqs;

  // Jackson binds the server's request and answer records by reflection.
  opens io.switchboard.server to
      com.fasterxml.jackson.databind;
  opens io.switchboard.server.auth to
      com.fasterxml.jackson.databind;
  opens io.switchboard.server.sqs to
      com.fasterxml.jackson.databind;
}
