package io.switchboard.bench.filter;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The messages of a filtered-consumption run, generated from a fixed seed so that both systems see
 * exactly the same data: language (10 values), gender (3), tier (number 1..5) and skills (a list
 * drawn from a small set). The selector {@link #SELECTOR} accepts a message with language 'es'
 * (1/10), gender 'M' (1/3), tier 3 (1/5) and the skill 'vip' ({@link #VIP_PROBABILITY}): 0.1% in
 * expectation.
 */
final class Workload {

  static final String[] LANGUAGES = {"en", "es", "fr", "de", "it", "pt", "nl", "pl", "sv", "ja"};
  static final String[] GENDERS = {"M", "F", "X"};
  static final String[] OTHER_SKILLS = {"billing", "tech", "sales", "retention", "german"};

  /** 0.1 x 1/3 x 0.2 x 0.15 = 0.001. */
  static final double VIP_PROBABILITY = 0.15;

  static final double OTHER_SKILL_PROBABILITY = 0.3;

  /** Switchboard selector (docs/selectors.md). */
  static final String SELECTOR =
      "language = 'es' AND gender = 'M' AND tier = 3 AND skills HAS 'vip'";

  /** The same predicate in Artemis / JMS selector syntax: lists become boolean properties. */
  static final String ARTEMIS_SELECTOR =
      "language = 'es' AND gender = 'M' AND tier = 3 AND skill_vip = TRUE";

  static final int BODY_BYTES = 100;

  /** One message's attributes. Strings are shared constants, so a million of these is cheap. */
  record Msg(String language, String gender, int tier, List<String> skills) {
    boolean matches() {
      return language.equals("es") && gender.equals("M") && tier == 3 && skills.contains("vip");
    }
  }

  private final SplittableRandom random;

  Workload(long seed) {
    this.random = new SplittableRandom(seed);
  }

  Msg next() {
    String language = LANGUAGES[random.nextInt(LANGUAGES.length)];
    String gender = GENDERS[random.nextInt(GENDERS.length)];
    int tier = 1 + random.nextInt(5);
    List<String> skills = new ArrayList<>(3);
    if (random.nextDouble() < VIP_PROBABILITY) {
      skills.add("vip");
    }
    for (String s : OTHER_SKILLS) {
      if (random.nextDouble() < OTHER_SKILL_PROBABILITY) {
        skills.add(s);
      }
    }
    return new Msg(language, gender, tier, List.copyOf(skills));
  }

  /** A message the selector accepts, with random other skills. */
  Msg nextMatching() {
    List<String> skills = new ArrayList<>(3);
    skills.add("vip");
    for (String s : OTHER_SKILLS) {
      if (random.nextDouble() < OTHER_SKILL_PROBABILITY) {
        skills.add(s);
      }
    }
    return new Msg("es", "M", 3, List.copyOf(skills));
  }

  /** {@code depth} messages in generation order. */
  List<Msg> generate(int depth) {
    List<Msg> out = new ArrayList<>(depth);
    for (int i = 0; i < depth; i++) {
      out.add(next());
    }
    return out;
  }

  /** A 100-byte ASCII body (not all the same bytes, so nothing compresses it away). */
  static String body(int n) {
    StringBuilder b = new StringBuilder(BODY_BYTES);
    b.append("msg-").append(n).append('-');
    while (b.length() < BODY_BYTES) {
      b.append((char) ('a' + (b.length() * 7 + n) % 26));
    }
    String s = b.toString();
    assert s.getBytes(StandardCharsets.UTF_8).length == BODY_BYTES;
    return s;
  }
}
