package io.switchboard.bench.routing;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The simulated contact center's fixed facts, from one seed: 40 skills (8 of them languages), each
 * agent's skills, and a generator of contact requirement sets (1 to 3 skills).
 *
 * <p>A skill set is a bit mask over the 40 skills ({@code long}). Languages are skills 0..7 and
 * become the agent attribute {@code languages} in Switchboard; the other 32 become {@code skills}.
 * Popularity is skewed the way real centers are: English is spoken by about half of the agents and
 * a few skills are common, most are rare (weights {@code 1 / (i + 1)^0.8}).
 *
 * <p>Every agent speaks one language and, with probability 0.3, a second, and holds 2 to 6 other
 * skills. A contact's requirement is 1 to 3 skills (uniform) drawn from the skills of an agent
 * chosen at random, so every contact can be served by at least one agent.
 */
final class CallCenter {

  static final int SKILLS = 40;
  static final int LANGUAGES = 8;

  static final String[] LANGUAGE_CODES = {"en", "es", "fr", "de", "pt", "it", "zh", "ja"};
  static final double[] LANGUAGE_WEIGHTS = {50, 20, 8, 7, 5, 4, 3, 3};
  private static final String[] OTHER_SKILLS = {
    "billing", "sales", "support", "tech", "returns", "vip", "fraud", "claims",
    "upgrades", "retention", "shipping", "warranty", "mortgage", "loans", "cards", "insurance",
    "travel", "hardware", "software", "network", "mobile", "tv", "internet", "accounts",
    "security", "privacy", "business", "enterprise", "partners", "legal", "complaints", "survey"
  };

  private final long[] agentSkills;
  private final SplittableRandom random;

  CallCenter(int agents, long seed) {
    this.random = new SplittableRandom(seed);
    this.agentSkills = new long[agents];
    double[] skillWeights = new double[SKILLS - LANGUAGES];
    for (int i = 0; i < skillWeights.length; i++) {
      skillWeights[i] = 1 / Math.pow(i + 1, 0.8);
    }
    for (int a = 0; a < agents; a++) {
      long mask = 1L << pick(LANGUAGE_WEIGHTS);
      if (random.nextDouble() < 0.3) {
        mask |= 1L << pick(LANGUAGE_WEIGHTS);
      }
      int others = 2 + random.nextInt(5);
      while (Long.bitCount(mask >>> LANGUAGES) < others) {
        mask |= 1L << (LANGUAGES + pick(skillWeights));
      }
      agentSkills[a] = mask;
    }
  }

  int agents() {
    return agentSkills.length;
  }

  long agentSkills(int agent) {
    return agentSkills[agent];
  }

  /** The next contact's requirement: 1 to 3 skills of a random agent. */
  long nextRequirement() {
    long skills = agentSkills[random.nextInt(agentSkills.length)];
    int want = Math.min(1 + random.nextInt(3), Long.bitCount(skills));
    long mask = 0;
    while (Long.bitCount(mask) < want) {
      int nth = random.nextInt(Long.bitCount(skills));
      long bits = skills;
      for (int i = 0; i < nth; i++) {
        bits &= bits - 1;
      }
      mask |= Long.lowestOneBit(bits);
    }
    return mask;
  }

  /** A random index below {@code bound}, from the center's stream. */
  int nextInt(int bound) {
    return random.nextInt(bound);
  }

  private int pick(double[] weights) {
    double total = 0;
    for (double w : weights) {
      total += w;
    }
    double x = random.nextDouble() * total;
    for (int i = 0; i < weights.length; i++) {
      x -= weights[i];
      if (x < 0) {
        return i;
      }
    }
    return weights.length - 1;
  }

  static boolean isLanguage(int skill) {
    return skill < LANGUAGES;
  }

  /** The skill's name: a language code for 0..7, a skill name above. */
  static String name(int skill) {
    return isLanguage(skill) ? LANGUAGE_CODES[skill] : OTHER_SKILLS[skill - LANGUAGES];
  }

  /** The languages in a mask, by name. */
  static List<String> languages(long mask) {
    return names(mask & ((1L << LANGUAGES) - 1));
  }

  /** The non-language skills in a mask, by name. */
  static List<String> skills(long mask) {
    return names(mask & ~((1L << LANGUAGES) - 1));
  }

  /** Every skill in a mask, by name, languages first. */
  static List<String> names(long mask) {
    List<String> names = new ArrayList<>(Long.bitCount(mask));
    for (long bits = mask; bits != 0; bits &= bits - 1) {
      names.add(name(Long.numberOfTrailingZeros(bits)));
    }
    return names;
  }

  /** The Switchboard selector for a requirement mask, e.g. {@code languages HAS 'es' AND ...}. */
  static String selector(long mask) {
    StringBuilder s = new StringBuilder();
    for (long bits = mask; bits != 0; bits &= bits - 1) {
      int skill = Long.numberOfTrailingZeros(bits);
      if (!s.isEmpty()) {
        s.append(" AND ");
      }
      s.append(isLanguage(skill) ? "languages" : "skills")
          .append(" HAS '")
          .append(name(skill))
          .append('\'');
    }
    return s.toString();
  }
}
