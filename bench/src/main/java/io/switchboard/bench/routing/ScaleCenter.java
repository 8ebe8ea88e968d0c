package io.switchboard.bench.routing;

import io.switchboard.routing.TaskQueue;
import io.switchboard.routing.Workflow;
import io.switchboard.routing.WorkflowFilter;
import io.switchboard.routing.WorkflowTarget;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * The contact center of the routing-at-scale workload, from one seed: its task queues, workflows,
 * agents and the contacts that arrive ({@code docs/benchmarks.md}, "Routing at scale").
 *
 * <p><b>Queues</b> ({@code queues} of them, a multiple of 8, at least 24): 8 languages ({@link
 * CallCenter#LANGUAGE_CODES}, weighted as there); {@code P} products in {@code F} product families
 * ({@code P + F = queues / 8 - 1}, {@code F = max(1, (P + F) / 5)}; 100 and 24 for 1,000 queues;
 * product {@code p} is in family {@code p % F}); one queue per product and language ({@code
 * p017-es}: {@code skills HAS 'p017' AND languages HAS 'es'}), one per family and language ({@code
 * f03-es}: {@code skills HAS 'f03' AND languages HAS 'es'}), and one per language ({@code
 * general-es}: {@code skills HAS 'general' AND languages HAS 'es'}).
 *
 * <p><b>Workflows</b>: one per family ({@code family-f03}), a filter per product of the family and
 * language ({@code product = 'p017' AND language = 'es'}), each with 3 targets: the product queue
 * for 30 s, the family queue for 60 s, then the language's general queue until matched.
 *
 * <p><b>Agents</b>: one language (weighted), a second with probability 0.3; 1 to 3 products
 * (popularity {@code 1 / (i + 1)^0.8}); with probability 0.5 trained on the families of their
 * products (skills {@code f<j>}), and independently with probability 0.5 a generalist (skill {@code
 * general}). Capacity 1 on {@code voice}.
 *
 * <p><b>Contacts</b>: attributes {@code product} and {@code language}, drawn from a random agent's
 * products and languages, so every contact has a specialist somewhere.
 */
final class ScaleCenter {

  static final int LANGUAGES = CallCenter.LANGUAGE_CODES.length;
  static final long SPECIALIST_MILLIS = 30_000;
  static final long FAMILY_MILLIS = 60_000;

  private final int products;
  private final int families;
  private final String[] productNames;
  private final String[] familyNames;
  private final byte[] agentLanguages; // bit mask over the 8 languages
  private final int[][] agentProducts;
  private final boolean[] familyTrained;
  private final boolean[] generalist;
  private final SplittableRandom random;

  ScaleCenter(int queues, int agents, long seed) {
    if (queues % LANGUAGES != 0 || queues < 3 * LANGUAGES) {
      throw new IllegalArgumentException(
          "--queues must be a multiple of 8 and at least 24 (8 languages × (products + families +"
              + " 1)), got "
              + queues);
    }
    int productsAndFamilies = queues / LANGUAGES - 1;
    this.families = Math.max(1, productsAndFamilies / 5);
    this.products = productsAndFamilies - families;
    this.productNames = new String[products];
    for (int p = 0; p < products; p++) {
      productNames[p] = String.format("p%03d", p);
    }
    this.familyNames = new String[families];
    for (int f = 0; f < families; f++) {
      familyNames[f] = String.format("f%02d", f);
    }
    this.random = new SplittableRandom(seed);
    double[] productWeights = new double[products];
    for (int i = 0; i < products; i++) {
      productWeights[i] = 1 / Math.pow(i + 1, 0.8);
    }
    this.agentLanguages = new byte[agents];
    this.agentProducts = new int[agents][];
    this.familyTrained = new boolean[agents];
    this.generalist = new boolean[agents];
    for (int a = 0; a < agents; a++) {
      int langs = 1 << pick(CallCenter.LANGUAGE_WEIGHTS);
      if (random.nextDouble() < 0.3) {
        langs |= 1 << pick(CallCenter.LANGUAGE_WEIGHTS);
      }
      agentLanguages[a] = (byte) langs;
      int want = Math.min(products, 1 + random.nextInt(3));
      List<Integer> chosen = new ArrayList<>(want);
      while (chosen.size() < want) {
        int p = pick(productWeights);
        if (!chosen.contains(p)) {
          chosen.add(p);
        }
      }
      agentProducts[a] = chosen.stream().mapToInt(Integer::intValue).sorted().toArray();
      familyTrained[a] = random.nextDouble() < 0.5;
      generalist[a] = random.nextDouble() < 0.5;
    }
  }

  int products() {
    return products;
  }

  int families() {
    return families;
  }

  int agents() {
    return agentProducts.length;
  }

  int familyOf(int product) {
    return product % families;
  }

  String product(int p) {
    return productNames[p];
  }

  static String language(int l) {
    return CallCenter.LANGUAGE_CODES[l];
  }

  // ---- the workspace's definition ---------------------------------------------------------

  static String productQueue(String product, String language) {
    return product + "-" + language;
  }

  String familyQueue(int family, int language) {
    return familyNames[family] + "-" + language(language);
  }

  static String generalQueue(int language) {
    return "general-" + language(language);
  }

  /** Every task queue: products × languages, families × languages, then one per language. */
  List<TaskQueue> queues() {
    List<TaskQueue> queues = new ArrayList<>();
    for (int l = 0; l < LANGUAGES; l++) {
      String lang = " AND languages HAS '" + language(l) + "'";
      for (int p = 0; p < products; p++) {
        queues.add(
            TaskQueue.named(productQueue(productNames[p], language(l)))
                .withWorkerExpression("skills HAS '" + productNames[p] + "'" + lang));
      }
      for (int f = 0; f < families; f++) {
        queues.add(
            TaskQueue.named(familyQueue(f, l))
                .withWorkerExpression("skills HAS '" + familyNames[f] + "'" + lang));
      }
      queues.add(
          TaskQueue.named(generalQueue(l)).withWorkerExpression("skills HAS 'general'" + lang));
    }
    return queues;
  }

  /** One workflow per family: a filter per product and language, each with its 3 targets. */
  List<Workflow> workflows() {
    List<Workflow> workflows = new ArrayList<>();
    for (int f = 0; f < families; f++) {
      List<WorkflowFilter> filters = new ArrayList<>();
      for (int p = f; p < products; p += families) {
        for (int l = 0; l < LANGUAGES; l++) {
          filters.add(
              new WorkflowFilter(
                  productQueue(productNames[p], language(l)),
                  "product = '" + productNames[p] + "' AND language = '" + language(l) + "'",
                  List.of(
                      WorkflowTarget.queue(productQueue(productNames[p], language(l)))
                          .withTimeout(Duration.ofMillis(SPECIALIST_MILLIS)),
                      WorkflowTarget.queue(familyQueue(f, l))
                          .withTimeout(Duration.ofMillis(FAMILY_MILLIS)),
                      WorkflowTarget.queue(generalQueue(l)))));
        }
      }
      workflows.add(
          new Workflow(
              workflow(f),
              filters,
              List.of(WorkflowTarget.queue(generalQueue(0))),
              Optional.empty()));
    }
    return workflows;
  }

  String workflow(int family) {
    return "family-" + familyNames[family];
  }

  // ---- agents -----------------------------------------------------------------------------

  List<String> languages(int agent) {
    List<String> names = new ArrayList<>(2);
    for (int l = 0; l < LANGUAGES; l++) {
      if ((agentLanguages[agent] & (1 << l)) != 0) {
        names.add(language(l));
      }
    }
    return names;
  }

  /** The agent's skills: its products, its families if trained on them, {@code general}. */
  List<String> skills(int agent) {
    List<String> names = new ArrayList<>(8);
    for (int p : agentProducts[agent]) {
      names.add(productNames[p]);
    }
    if (familyTrained[agent]) {
      for (int p : agentProducts[agent]) {
        String f = familyNames[familyOf(p)];
        if (!names.contains(f)) {
          names.add(f);
        }
      }
    }
    if (generalist[agent]) {
      names.add("general");
    }
    return names;
  }

  /** The agent's products and languages only: what seed 004's model can express. */
  List<String> seedSkills(int agent) {
    List<String> names = new ArrayList<>(4);
    for (int p : agentProducts[agent]) {
      names.add(productNames[p]);
    }
    names.addAll(languages(agent));
    return names;
  }

  /**
   * Whether {@code agent} may serve a contact of {@code product} in {@code language} at workflow
   * target {@code tier} (0 product queue, 1 family queue, 2 general queue).
   */
  boolean admits(int agent, int product, int language, int tier) {
    if ((agentLanguages[agent] & (1 << language)) == 0) {
      return false;
    }
    return switch (tier) {
      case 0 -> has(agentProducts[agent], product);
      case 1 -> familyTrained[agent] && hasFamily(agentProducts[agent], familyOf(product));
      default -> generalist[agent];
    };
  }

  private static boolean has(int[] products, int product) {
    for (int p : products) {
      if (p == product) {
        return true;
      }
    }
    return false;
  }

  private boolean hasFamily(int[] products, int family) {
    for (int p : products) {
      if (familyOf(p) == family) {
        return true;
      }
    }
    return false;
  }

  // ---- contacts ---------------------------------------------------------------------------

  /** The next contact: {@code product * 8 + language}, from a random agent's. */
  int nextContact() {
    int agent = random.nextInt(agentProducts.length);
    int[] ps = agentProducts[agent];
    int product = ps[random.nextInt(ps.length)];
    int langs = agentLanguages[agent] & 0xFF;
    int nth = random.nextInt(Integer.bitCount(langs));
    for (int i = 0; i < nth; i++) {
      langs &= langs - 1;
    }
    return product * LANGUAGES + Integer.numberOfTrailingZeros(langs);
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
}
