package io.switchboard.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * Names shown to users do not depend on the machine's locale: under a Turkish default locale {@code
 * "OFFLINE".toLowerCase()} is {@code "offlıne"} (dotless i).
 */
class PresenceLocaleTest {

  @Test
  void presenceNames_underATurkishDefaultLocale_areThePlainEnglishNames() {
    Locale before = Locale.getDefault();
    try {
      Locale.setDefault(Locale.forLanguageTag("tr-TR"));
      assertEquals("offline", Presence.offline().toString());
      assertEquals("available", Presence.available().toString());
      assertEquals("away(break)", Presence.away("break").toString());
    } finally {
      Locale.setDefault(before);
    }
  }
}
