/**
 * The Switchboard server: the native HTTP API, the SQS-compatible API, the web console, access
 * keys, metrics and tracing, over the in-memory, RocksDB and PostgreSQL engines, on Helidon.
 *
 * <p>The main code is compiled as this module, so javac checks what it requires and reads; the
 * server still starts on the class path (the launcher's start script), and its tests run there
 * (docs/decisions.md, 2026-11-26). The packages under {@code io.switchboard.server} are the
 * server's rooms (docs/architecture.md); those whose types the embedding API of {@code
 * io.switchboard.server} names are exported, the others not.
 */
@SuppressWarnings("requires-automatic")
module io.switchboard.server {
  requires transitive io.switchboard.core;
  requires transitive io.switchboard.client;
  requires transitive io.switchboard.storage.rocksdb;
  requires transitive io.switchboard.storage.postgres;
  requires io.switchboard.storage.dynamodb;
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
  requires io.switchboard.proto;
  requires io.grpc;
  requires io.grpc.stub;
  requires io.grpc.netty.shaded;
  requires io.grpc.util;
  requires static org.jspecify;

  exports io.switchboard.server;
  // In the signatures of io.switchboard.server's public classes (ServerConfig and its settings,
  // SwitchboardServer's key ring, the init file the CLI checks), so exported with it.
  exports io.switchboard.server.config;
  exports io.switchboard.server.auth;
  exports io.switchboard.server.init;
  exports io.switchboard.server.sqs;

  // Jackson binds the server's request and answer records by reflection.
  opens io.switchboard.server to
      com.fasterxml.jackson.databind;
  opens io.switchboard.server.api.keys to
      com.fasterxml.jackson.databind;
  opens io.switchboard.server.api.queues to
      com.fasterxml.jackson.databind;
  opens io.switchboard.server.api.routing to
      com.fasterxml.jackson.databind;
  opens io.switchboard.server.auth to
      com.fasterxml.jackson.databind;
  opens io.switchboard.server.cluster to
      com.fasterxml.jackson.databind;
  opens io.switchboard.server.config to
      com.fasterxml.jackson.databind;
  opens io.switchboard.server.console to
      com.fasterxml.jackson.databind;
  opens io.switchboard.server.http to
      com.fasterxml.jackson.databind;
  opens io.switchboard.server.init to
      com.fasterxml.jackson.databind;
  opens io.switchboard.server.observability to
      com.fasterxml.jackson.databind;
  opens io.switchboard.server.security to
      com.fasterxml.jackson.databind;
  opens io.switchboard.server.security.sigv4 to
      com.fasterxml.jackson.databind;
  opens io.switchboard.server.sqs to
      com.fasterxml.jackson.databind;
}
