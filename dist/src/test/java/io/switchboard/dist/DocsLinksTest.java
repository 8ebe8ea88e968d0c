package io.switchboard.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The documents a user reads hold together and say what is true: every relative link of {@code
 * README.md} and {@code docs/**}{@code /*.md} reaches a file, and a {@code file.md#anchor} link a
 * heading of that file (GitHub's slug) or an explicit {@code <a id>}; every page under {@code docs}
 * that a document or a source file names by its path (help texts and comments included) exists; and
 * no document calls something "not yet" built or enforced unless it is one of the few true uses
 * listed here.
 *
 * <p>The dated records, {@code docs/decisions.md} and {@code docs/bench-history/}, are exempt from
 * the wording checks: they say what was true on their date.
 */
class DocsLinksTest {

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)");
  private static final Pattern CODE_SPAN = Pattern.compile("`[^`]*`");
  private static final Pattern LINK =
      Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
  private static final Pattern REFERENCE = Pattern.compile("^\\s*\\[[^\\]]+\\]:\\s*(\\S+)");
  private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
  private static final Pattern EXPLICIT_ANCHOR = Pattern.compile("<a\\s+(?:id|name)=\"([^\"]+)\"");
  private static final Pattern DOC_PATH =
      Pattern.compile("(?<![\\w./-])docs/[A-Za-z0-9_./-]+\\.md(#[A-Za-z0-9_-]+)?");
  private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:");
  private static final Pattern ISSUE = Pattern.compile("(?i)\\bissues? #?\\d+");

  /**
   * Words that say something is not there yet. Each use must be one of {@link #TRUE_USES}: when a
   * feature ships, its "not yet" goes from the document, and from the list.
   */
  private static final List<String> NOT_YET =
      List.of(
          "not yet",
          "not built",
          "— planned",
          "— in progress",
          "admits everything today",
          "durable mode today",
          "as they are added");

  /**
   * The true uses, by file: each fragment (whitespace as in one line) holds one of {@link #NOT_YET}
   * and is checked against the code when it is added.
   */
  private static final Map<String, List<String>> TRUE_USES =
      Map.of(
          "docs/server.md", List.of("(received, not yet acked)"),
          "docs/storage.md", List.of("receives/acks not yet handed to RocksDB"),
          "docs/security.md", List.of("(the certificate replaced, the key not yet)"),
          "docs/design.md",
              List.of(
                  "Not built yet: a warm transfer",
                  "Not built: the redrive snapshot and a grouped queue's browse page"),
          "docs/routing.md",
              List.of(
                  "What is not built yet is listed at the end of this part.",
                  "**Not built yet** (later steps):",
                  "Not built: the CLI's `contacts create` has no `--workflow`"));

  @Test
  void everyRelativeLink_reachesAFileAndItsAnchor() {
    List<String> broken = new ArrayList<>();
    for (Path doc : documents()) {
      List<String> lines = lines(doc);
      boolean fenced = false;
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        if (FENCE.matcher(line).find()) {
          fenced = !fenced;
          continue;
        }
        if (fenced) {
          continue;
        }
        String text = CODE_SPAN.matcher(line).replaceAll("");
        List<String> targets = new ArrayList<>();
        Matcher link = LINK.matcher(text);
        while (link.find()) {
          targets.add(link.group(1));
        }
        Matcher reference = REFERENCE.matcher(text);
        if (reference.find()) {
          targets.add(reference.group(1));
        }
        for (String target : targets) {
          String problem = problem(doc.getParent(), target);
          if (problem != null) {
            broken.add(where(doc, i) + ": " + target + ": " + problem);
          }
        }
      }
    }
    assertEquals(List.of(), broken, "links that lead nowhere");
  }

  @Test
  void everyDocPathNamedInDocsAndSources_exists() {
    List<String> broken = new ArrayList<>();
    List<Path> files = new ArrayList<>(documents());
    files.addAll(sources());
    for (Path file : files) {
      List<String> lines = lines(file);
      for (int i = 0; i < lines.size(); i++) {
        Matcher m = DOC_PATH.matcher(lines.get(i));
        while (m.find()) {
          String named = m.group();
          String problem = problem(ROOT, named);
          if (problem != null) {
            broken.add(where(file, i) + ": " + named + ": " + problem);
          }
        }
      }
    }
    assertEquals(List.of(), broken, "documents named that do not exist");
  }

  @Test
  void noDocumentCallsAShippedFeatureNotYetThere() {
    List<String> stale = new ArrayList<>();
    List<String> gone = new ArrayList<>();
    for (Path doc : currentDocuments()) {
      String rel = relative(doc);
      String text = String.join(" ", lines(doc)).replaceAll("\\s+", " ");
      String lower = text.toLowerCase(Locale.ROOT);
      List<int[]> allowed = new ArrayList<>();
      for (String use : TRUE_USES.getOrDefault(rel, List.of())) {
        int at = text.indexOf(use);
        if (at < 0) {
          gone.add(rel + ": \"" + use + "\"");
        }
        while (at >= 0) {
          allowed.add(new int[] {at, at + use.length()});
          at = text.indexOf(use, at + 1);
        }
      }
      for (String phrase : NOT_YET) {
        int at = lower.indexOf(phrase);
        while (at >= 0) {
          int start = at;
          int end = at + phrase.length();
          if (allowed.stream().noneMatch(a -> a[0] <= start && end <= a[1])) {
            stale.add(rel + ": \"…" + excerpt(text, start, end) + "…\"");
          }
          at = lower.indexOf(phrase, at + 1);
        }
      }
    }
    assertEquals(
        List.of(),
        stale,
        "a document says something is not there yet: read the code; if it shipped, say what is"
            + " true; if it is still missing, add the sentence to DocsLinksTest.TRUE_USES");
    assertEquals(
        List.of(), gone, "true uses the documents no longer hold: remove them from TRUE_USES");
  }

  /**
   * Comments in the Java sources cite documents and decisions the same way: an issue number in a
   * comment pointed at a tracker the repository does not have.
   */
  @Test
  void noSourceCitesAnIssueNumber() {
    List<String> citing = new ArrayList<>();
    for (Path source : sources()) {
      List<String> lines = lines(source);
      for (int i = 0; i < lines.size(); i++) {
        Matcher m = ISSUE.matcher(lines.get(i));
        while (m.find()) {
          citing.add(where(source, i) + ": " + m.group());
        }
      }
    }
    assertEquals(
        List.of(),
        citing,
        "the repository has no issue tracker: cite a document or decision by its heading or anchor");
  }

  @Test
  void noDocumentCitesAnIssueNumber() {
    List<String> citing = new ArrayList<>();
    for (Path doc : documents()) {
      if (relative(doc).equals("docs/decisions.md")) {
        continue; // its entries are kept as they were written; new ones cite by anchor
      }
      List<String> lines = lines(doc);
      for (int i = 0; i < lines.size(); i++) {
        Matcher m = ISSUE.matcher(lines.get(i));
        while (m.find()) {
          citing.add(where(doc, i) + ": " + m.group());
        }
      }
    }
    assertEquals(
        List.of(),
        citing,
        "the repository has no issue tracker: cite a document or decision by its anchor");
  }

  /**
   * Why {@code target}, as written in a document of {@code dir}, leads nowhere; null if it does.
   */
  private static String problem(Path dir, String target) {
    if (SCHEME.matcher(target).find() || target.startsWith("//")) {
      return null; // a URL of the web, not checked here
    }
    int hash = target.indexOf('#');
    String file = hash < 0 ? target : target.substring(0, hash);
    String anchor = hash < 0 ? "" : target.substring(hash + 1);
    Path resolved = file.isEmpty() ? null : dir.resolve(file.replace("%20", " ")).normalize();
    if (resolved != null && !Files.exists(resolved)) {
      return "no such file";
    }
    if (anchor.isEmpty()) {
      return null;
    }
    Path page = resolved == null ? dir : resolved;
    if (!page.toString().endsWith(".md")) {
      return null;
    }
    return anchors(page).contains(anchor) ? null : "no heading or <a id> '" + anchor + "'";
  }

  private static final Map<Path, Set<String>> ANCHORS = new HashMap<>();

  /**
   * The anchors of a Markdown page: GitHub's heading slugs (-1, -2 for repeats) and explicit ids.
   */
  static Set<String> anchors(Path page) {
    return ANCHORS.computeIfAbsent(
        page,
        p -> {
          Set<String> anchors = new LinkedHashSet<>();
          Map<String, Integer> seen = new HashMap<>();
          boolean fenced = false;
          for (String line : lines(p)) {
            if (FENCE.matcher(line).find()) {
              fenced = !fenced;
              continue;
            }
            if (fenced) {
              continue;
            }
            Matcher explicit = EXPLICIT_ANCHOR.matcher(CODE_SPAN.matcher(line).replaceAll(""));
            while (explicit.find()) {
              anchors.add(explicit.group(1));
            }
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
              String slug = slug(heading.group(2));
              int n = seen.merge(slug, 1, Integer::sum) - 1;
              anchors.add(n == 0 ? slug : slug + "-" + n);
            }
          }
          return anchors;
        });
  }

  /**
   * GitHub's anchor for a heading: its text (link targets and tags dropped), lower case, without
   * what is not a letter, digit, {@code _}, {@code -} or space, each space a {@code -}.
   */
  static String slug(String heading) {
    String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replaceAll("<[^>]+>", "");
    StringBuilder slug = new StringBuilder();
    text.toLowerCase(Locale.ROOT)
        .codePoints()
        .forEach(
            c -> {
              if (c == ' ') {
                slug.append('-');
              } else if (Character.isLetterOrDigit(c) || c == '_' || c == '-') {
                slug.appendCodePoint(c);
              }
            });
    return slug.toString();
  }

  private static String excerpt(String text, int start, int end) {
    return text.substring(Math.max(0, start - 60), Math.min(text.length(), end + 60));
  }

  /** README.md and every Markdown file under docs/. */
  private static List<Path> documents() {
    List<Path> docs = new ArrayList<>();
    docs.add(ROOT.resolve("README.md"));
    try (Stream<Path> walk = Files.walk(ROOT.resolve("docs"))) {
      walk.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertTrue(Files.isRegularFile(docs.get(0)), "not the repository's root: " + ROOT);
    return docs;
  }

  /** The documents that describe the product as it is (not the dated records). */
  private static List<Path> currentDocuments() {
    return documents().stream()
        .filter(p -> !relative(p).equals("docs/decisions.md"))
        .filter(p -> !relative(p).startsWith("docs/bench-history/"))
        .toList();
  }

  /** The Java sources of every module (main and test), where help texts and comments name docs. */
  private static List<Path> sources() {
    List<Path> sources = new ArrayList<>();
    try (Stream<Path> modules = Files.list(ROOT)) {
      for (Path src : modules.map(m -> m.resolve("src")).filter(Files::isDirectory).toList()) {
        try (Stream<Path> walk = Files.walk(src)) {
          walk.filter(p -> p.toString().endsWith(".java")).sorted().forEach(sources::add);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertTrue(
        sources.size() > 100, "found only " + sources.size() + " Java sources under " + ROOT);
    return sources;
  }

  private static List<String> lines(Path file) {
    try {
      return Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String relative(Path file) {
    return ROOT.relativize(file).toString().replace('\\', '/');
  }

  private static String where(Path file, int index) {
    return relative(file) + ":" + (index + 1);
  }
}
