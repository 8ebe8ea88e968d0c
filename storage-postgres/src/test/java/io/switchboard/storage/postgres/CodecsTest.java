package io.switchboard.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.QueueConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CodecsTest {

  @Test
  void metadataWithSeparatorsAndAnyCharacterSurvivesTheRoundTrip() {
    Map<String, String> metadata =
        Map.of(
            "sqs.policy",
            "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Sid\":\"a;b=c&d%20\"}]}",
            "sqs.tag.team name",
            "grün & blau; 100% = ok",
            "empty",
            "",
            "k=;&%",
            "+plus+");
    QueueConfig config = QueueConfig.builder().metadata(metadata).build();

    QueueConfig decoded = Codecs.decodeConfig(Codecs.encodeConfig(config));

    assertEquals(metadata, decoded.metadata());
    assertEquals(config, decoded);
  }

  @Test
  void aKeyLimitRoundTrips_andAConfigurationWithoutOneHasNone() {
    QueueConfig config = QueueConfig.builder().keyLimit(12).build();
    assertEquals(config, Codecs.decodeConfig(Codecs.encodeConfig(config)));
    String without = Codecs.encodeConfig(QueueConfig.defaults());
    assertEquals(false, without.contains("keyLimit"), without);
    assertEquals(QueueConfig.defaults(), Codecs.decodeConfig(without));
  }

  @Test
  void aConfigurationWithoutMetadataIsStoredWithoutTheMetaPair() {
    QueueConfig config = QueueConfig.defaults();

    String encoded = Codecs.encodeConfig(config);

    assertEquals(false, encoded.contains("meta"), encoded);
    assertEquals(config, Codecs.decodeConfig(encoded));
  }

  @Test
  void damagedStoredConfigurationMissingAKey_failsNamingTheKeyNotWithANullPointer() {
    String encoded = Codecs.encodeConfig(QueueConfig.defaults());
    for (String key : new String[] {"order", "visibility", "maxMessageSize", "onExpire"}) {
      String damaged = encoded.replaceFirst("(?<![^;])" + key + "=[^;]*;?", "");

      IllegalStateException e =
          assertThrows(IllegalStateException.class, () -> Codecs.decodeConfig(damaged), damaged);

      assertTrue(e.getMessage().contains("no '" + key + "'"), e.getMessage());
    }
  }
}
