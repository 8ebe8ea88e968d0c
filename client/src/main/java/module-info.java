/**
 * The Java client of Switchboard's native HTTP API, and the API's JSON mapping (Jackson), which the
 * server uses too. {@code WireFormat}, {@code JsonFields} and the {@code ...Wire} records are that
 * shared mapping: public for the server's sake, not client API (they share the one package).
 */
module io.switchboard.client {
  requires transitive io.switchboard.core;
  requires transitive com.fasterxml.jackson.databind;
  requires java.net.http;
  requires static org.jspecify;

  exports io.switchboard.client;

  // Jackson binds the wire records by reflection.
  opens io.switchboard.client to
      com.fasterxml.jackson.databind;
}
