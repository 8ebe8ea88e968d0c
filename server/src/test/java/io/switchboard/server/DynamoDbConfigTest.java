package io.switchboard.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.server.config.ServerConfig;
import io.switchboard.server.config.StartupException;
import java.net.URI;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The DynamoDB store's settings: {@code dynamodb-table}, {@code -region}, {@code -endpoint}. */
class DynamoDbConfigTest {

  @Test
  void unset_noDynamoDb() {
    assertEquals(Optional.empty(), ServerConfig.resolve(Map.of(), Map.of()).dynamodb());
  }

  @Test
  void tableAlone_regionAndEndpointTheSdksDefaults() {
    ServerConfig.DynamoDb d =
        ServerConfig.resolve(Map.of("dynamodb-table", "queues"), Map.of()).dynamodb().orElseThrow();
    assertEquals("queues", d.table());
    assertEquals(Optional.empty(), d.region());
    assertEquals(Optional.empty(), d.endpoint());
  }

  @Test
  void fromFlagsAndEnvironment() {
    ServerConfig.DynamoDb d =
        ServerConfig.resolve(
                Map.of("dynamodb-endpoint", "http://127.0.0.1:5000"),
                Map.of(
                    "SWITCHBOARD_DYNAMODB_TABLE", "sb.queues",
                    "SWITCHBOARD_DYNAMODB_REGION", "eu-west-1"))
            .dynamodb()
            .orElseThrow();
    assertEquals("sb.queues", d.table());
    assertEquals(Optional.of("eu-west-1"), d.region());
    assertEquals(Optional.of(URI.create("http://127.0.0.1:5000")), d.endpoint());
  }

  @Test
  void tableThatDynamoDbWouldRefuse_isRefusedNamingValueAndSource() {
    StartupException e =
        assertThrows(
            StartupException.class,
            () -> ServerConfig.resolve(Map.of("dynamodb-table", "my table"), Map.of()));
    assertTrue(
        e.getMessage().startsWith("dynamodb-table must be a DynamoDB table name")
            && e.getMessage().contains("'my table'")
            && e.getMessage().contains("(from --dynamodb-table)"),
        e.getMessage());
  }

  @Test
  void endpointNotAUrl_isRefused() {
    StartupException e =
        assertThrows(
            StartupException.class,
            () ->
                ServerConfig.resolve(
                    Map.of("dynamodb-table", "queues", "dynamodb-endpoint", "localhost:5000"),
                    Map.of()));
    assertTrue(e.getMessage().startsWith("dynamodb-endpoint must be an absolute"), e.getMessage());
  }
}
