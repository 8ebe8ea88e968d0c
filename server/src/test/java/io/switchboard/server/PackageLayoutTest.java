package io.switchboard.server;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The server's packages use each other as docs/architecture.md draws them and each
 * package-info.java says: every package only the packages below it that it names, and no two
 * packages each other. Read from the compiled main classes (ArchUnit), so a reference in code
 * counts and one in a comment does not.
 */
class PackageLayoutTest {

  private static final String ROOT = "io.switchboard.server";

  /**
   * Each package of the server (relative to {@link #ROOT}; "" is the root itself) and the server
   * packages it may use, as its package-info.java says.
   */
  private static final Map<String, Set<String>> MAY_USE =
      Map.ofEntries(
          Map.entry("auth", Set.of()),
          Map.entry("dispatch", Set.of()),
          Map.entry("config", Set.of("auth")),
          Map.entry("security.sigv4", Set.of("auth")),
          Map.entry("http", Set.of("config", "auth")),
          Map.entry("security", Set.of("security.sigv4", "http", "config", "auth")),
          Map.entry("api.queues", Set.of("http", "config", "auth")),
          Map.entry("api.routing", Set.of("security", "http", "config", "auth")),
          Map.entry("api.keys", Set.of("security", "http", "auth")),
          Map.entry("api.push", Set.of("dispatch", "security", "http", "config", "auth")),
          Map.entry("console", Set.of("http", "auth")),
          Map.entry("init", Set.of("security", "config", "auth")),
          Map.entry(
              "observability",
              Set.of(
                  "api.queues",
                  "api.routing",
                  "api.keys",
                  "api.push",
                  "security",
                  "http",
                  "config",
                  "auth")),
          Map.entry("sqs", Set.of("security", "security.sigv4", "http", "config", "auth")),
          Map.entry(
              "grpc",
              Set.of(
                  "api.queues", "api.routing", "dispatch", "security", "http", "config", "auth")),
          Map.entry(
              "cluster",
              Set.of("api.routing", "init", "observability", "security", "http", "config", "auth")),
          Map.entry(
              "",
              Set.of(
                  "cluster",
                  "grpc",
                  "sqs",
                  "observability",
                  "init",
                  "console",
                  "api.keys",
                  "api.push",
                  "api.routing",
                  "api.queues",
                  "security",
                  "http",
                  "security.sigv4",
                  "config",
                  "auth")));

  private static final JavaClasses SERVER =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages(ROOT);

  private static String name(String relative) {
    return relative.isEmpty() ? ROOT : ROOT + "." + relative;
  }

  @Test
  void everyPackage_isDrawn_andNoneIsLeftOut() {
    Set<String> found =
        SERVER.stream()
            .map(JavaClass::getPackageName)
            .filter(p -> p.startsWith(ROOT))
            .collect(Collectors.toCollection(TreeSet::new));
    Set<String> drawn =
        MAY_USE.keySet().stream()
            .map(PackageLayoutTest::name)
            .collect(Collectors.toCollection(TreeSet::new));
    assertEquals(drawn, found, "a new package needs its place here and in docs/architecture.md");
  }

  @Test
  void eachPackage_usesOnlyThePackagesItMayUse() {
    for (var entry : MAY_USE.entrySet()) {
      String[] forbidden =
          MAY_USE.keySet().stream()
              .filter(p -> !p.equals(entry.getKey()) && !entry.getValue().contains(p))
              .map(PackageLayoutTest::name)
              .toArray(String[]::new);
      if (forbidden.length == 0) {
        continue;
      }
      noClasses()
          .that()
          .resideInAPackage(name(entry.getKey()))
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(forbidden)
          .because(name(entry.getKey()) + "'s package-info.java says what it may use")
          .check(SERVER);
    }
  }

  @Test
  void noTwoPackages_useEachOther() {
    slices().matching(ROOT + ".(**)").should().beFreeOfCycles().check(SERVER);
  }
}
