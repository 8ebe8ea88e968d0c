package io.switchboard.server.sqs;

import io.switchboard.queue.QueueEngine;
import io.switchboard.queue.QueueInfo;
import io.switchboard.server.config.SqsAccount;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Where one SQS request is: its region and the configured account, and how queue names, URLs and
 * ARNs of that region map to the engine's one flat namespace of queues.
 *
 * <p>A queue of the default region is the engine's queue of the same name, so the native API and
 * SQS in the default region see the same queues. A queue {@code <name>} of another region is the
 * engine's queue {@code __<region>__<name>}: region names have no underscore, so the first {@code
 * __} after the leading one ends the region, and names starting with {@code __} are refused (and
 * never shown) in the default region, so no two (region, name) pairs share an engine queue. The
 * prefix counts against the engine's 80 characters, so names in other regions are shorter.
 *
 * <p>Queue URLs are {@code <base>/<account>/<name>} when the host names the queue's region (such as
 * {@code sqs.eu-west-1.localhost}) or, with a host that names none, for the default region, and
 * {@code <base>/queue/<region>/<account>/<name>} otherwise. ARNs are {@code
 * arn:aws:sqs:<region>:<account>:<name>}. A {@code QueueUrl} is accepted in any of those forms, as
 * a path, or as the bare name; one that names another account or another region than the request's
 * names no queue.
 */
final class QueueAddress {

  private static final String RESERVED = "__";
  private static final int MAX_ENGINE_NAME = 80;
  private static final String FIFO = ".fifo";
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]+");

  /** A host label that is an AWS-style region name, such as {@code eu-west-1}. */
  private static final Pattern HOST_REGION = Pattern.compile("[a-z]{2,}(-[a-z]+)+-\\d+");

  /** A queue URL's path: {@code /<account>/<name>} or {@code /queue/<region>/<account>/<name>}. */
  private static final Pattern QUEUE_PATH =
      Pattern.compile("(?:/queue/([a-z0-9-]+))?/(\\d{12})/([^/]+)/?");

  private final String baseUrl;
  private final String region;
  private final Optional<String> hostRegion;
  private final SqsAccount account;

  /**
   * @param baseUrl scheme, host and port the caller reached us at, e.g. {@code
   *     http://localhost:8080}
   * @param region the request's region, a valid one ({@link SqsAccount#validRegion})
   */
  QueueAddress(String baseUrl, String region, SqsAccount account) {
    this.baseUrl = baseUrl;
    this.region = region;
    this.hostRegion = baseUrlRegion(baseUrl);
    this.account = account;
  }

  /** A matcher of a queue URL's path; groups: region (or null), account, name. */
  static Matcher queuePath(String rawPath) {
    return QUEUE_PATH.matcher(rawPath);
  }

  /** The region a host names in one of its labels, such as {@code sqs.eu-west-1.localhost}. */
  static Optional<String> hostRegion(String host) {
    String h = host;
    int colon = h.lastIndexOf(':');
    if (colon >= 0 && h.indexOf(']') < colon) {
      h = h.substring(0, colon);
    }
    for (String label : h.split("\\.")) {
      if (HOST_REGION.matcher(label).matches() && SqsAccount.validRegion(label)) {
        return Optional.of(label);
      }
    }
    return Optional.empty();
  }

  /** The region the host of a base URL names, such as {@code http://sqs.eu-west-1.localhost}. */
  static Optional<String> baseUrlRegion(String baseUrl) {
    // read two or three times per request, and a server is reached under a handful of names:
    // kept, not matched again (bounded: the Host header is the client's to choose)
    return keptHostRegion(authority(baseUrl));
  }

  /**
   * {@link #hostRegion} of a URL's authority, kept: asked for the base URL and for each queue URL
   * of a request, under a handful of names.
   */
  private static Optional<String> keptHostRegion(String authority) {
    Optional<String> region = BASE_URL_REGIONS.get(authority);
    if (region == null) {
      region = hostRegion(authority);
      if (BASE_URL_REGIONS.size() >= MAX_BASE_URLS) {
        BASE_URL_REGIONS.clear();
      }
      BASE_URL_REGIONS.put(authority, region);
    }
    return region;
  }

  /**
   * How many hosts' regions (base URLs', queue URLs') are kept; past it, the cache starts afresh.
   */
  static final int MAX_BASE_URLS = 256;

  private static final java.util.Map<String, Optional<String>> BASE_URL_REGIONS =
      new java.util.concurrent.ConcurrentHashMap<>();

  String accountId() {
    return account.id();
  }

  private boolean inDefaultRegion() {
    return region.equals(account.defaultRegion());
  }

  private String prefix() {
    return RESERVED + region + RESERVED;
  }

  // ---- names -------------------------------------------------------------------------------

  /**
   * The engine's name of queue {@code name} of this region, for CreateQueue: refuses a name that
   * cannot be kept apart from other regions' queues. The engine checks the rest of a default-region
   * name.
   */
  String forCreate(String name) {
    if (inDefaultRegion()) {
      if (name.startsWith(RESERVED)) {
        throw SqsError.invalidParameter(
            "QueueName must not start with '__' in region "
                + region
                + ": such names are reserved for the queues of other regions, got '"
                + name
                + "'");
      }
      return name;
    }
    String base = name.endsWith(FIFO) ? name.substring(0, name.length() - FIFO.length()) : name;
    int max = MAX_ENGINE_NAME - prefix().length();
    if (!NAME.matcher(base).matches() || name.length() > max) {
      throw SqsError.invalidParameter(
          "QueueName in region "
              + region
              + " must be 1.."
              + max
              + " characters of [A-Za-z0-9_-], with an optional '.fifo' suffix (it is kept as "
              + prefix()
              + "<name> among the server's 80-character queue names), got '"
              + name
              + "'");
    }
    return prefix() + name;
  }

  /** The engine's name of queue {@code name} of this region; none if no such queue can exist. */
  private Optional<String> engineName(String name) {
    if (inDefaultRegion()) {
      return name.startsWith(RESERVED) ? Optional.empty() : Optional.of(name);
    }
    String engineName = prefix() + name;
    return engineName.length() > MAX_ENGINE_NAME ? Optional.empty() : Optional.of(engineName);
  }

  /** The engine's name of queue {@code name} of this region, for GetQueueUrl. */
  String lookup(String name) {
    return engineName(name).orElseThrow(() -> SqsErrorText.QUEUE_DOES_NOT_EXIST.error());
  }

  /** Region and SQS name of an engine queue; none for a reserved name that is in no region. */
  private record Scoped(String region, String name) {}

  private Optional<Scoped> scoped(String engineName) {
    if (!engineName.startsWith(RESERVED)) {
      return Optional.of(new Scoped(account.defaultRegion(), engineName));
    }
    int end = engineName.indexOf(RESERVED, RESERVED.length());
    if (end < 0) {
      return Optional.empty();
    }
    String r = engineName.substring(RESERVED.length(), end);
    String name = engineName.substring(end + RESERVED.length());
    if (r.equals(account.defaultRegion())
        || !SqsAccount.validRegion(r)
        || name.isEmpty()
        || name.equals(FIFO)) {
      return Optional.empty();
    }
    return Optional.of(new Scoped(r, name));
  }

  private Scoped scopedOrPlain(String engineName) {
    return scoped(engineName).orElse(new Scoped(account.defaultRegion(), engineName));
  }

  /** The SQS name of an engine queue if it is a queue of this region. */
  Optional<String> nameInRegion(String engineName) {
    return scoped(engineName).filter(s -> s.region().equals(region)).map(Scoped::name);
  }

  /**
   * One page of the queues of this region whose SQS names start with {@code prefix} and sort after
   * {@code after} ("" for the first page): at most {@code limit} SQS names → engine names, in name
   * order. The engine is read a page at a time from the first engine name that could follow, so a
   * page costs by its size, not by the number of queues; in the default region the block of other
   * regions' names ({@code __region__name}) is stepped over in one seek.
   */
  SortedMap<String, String> page(QueueEngine engine, String prefix, String after, int limit) {
    SortedMap<String, String> out = new TreeMap<>();
    String enginePrefix = inDefaultRegion() ? prefix : prefix() + prefix;
    String engineAfter = after.isEmpty() ? "" : (inDefaultRegion() ? after : prefix() + after);
    while (out.size() < limit) {
      int wanted = limit - out.size();
      List<QueueInfo> batch = engine.listQueues(enginePrefix, engineAfter, wanted);
      for (QueueInfo q : batch) {
        engineAfter = q.name();
        nameInRegion(q.name())
            .filter(n -> n.startsWith(prefix) && n.compareTo(after) > 0)
            .ifPresent(n -> out.put(n, q.name()));
      }
      if (batch.size() < wanted) {
        break; // the engine has no more
      }
      if (inDefaultRegion() && engineAfter.startsWith(RESERVED)) {
        // DEL sorts after every character a queue name may hold: past every other region's queue
        engineAfter = RESERVED + '\u007f';
      }
    }
    return out;
  }

  // ---- URLs and ARNs -----------------------------------------------------------------------

  /** The URL of an engine queue. */
  String url(String engineName) {
    Scoped s = scopedOrPlain(engineName);
    boolean implied =
        hostRegion.map(s.region()::equals).orElse(s.region().equals(account.defaultRegion()));
    return baseUrl + (implied ? "" : "/queue/" + s.region()) + "/" + account.id() + "/" + s.name();
  }

  /** The ARN of an engine queue. */
  String arn(String engineName) {
    Scoped s = scopedOrPlain(engineName);
    return "arn:aws:sqs:" + s.region() + ":" + account.id() + ":" + s.name();
  }

  /**
   * The engine queue a {@code QueueUrl} names in this region and account.
   *
   * @throws SqsError {@code QueueDoesNotExist} for a URL of another account or region, or one
   *     without a queue path
   */
  String fromUrl(String queueUrl) {
    String s = queueUrl.strip();
    String host = "";
    int scheme = s.indexOf("://");
    if (scheme >= 0) {
      host = authority(s);
      int slash = s.indexOf('/', scheme + 3);
      s = slash < 0 ? "" : s.substring(slash);
    }
    while (s.endsWith("/")) {
      s = s.substring(0, s.length() - 1);
    }
    // the last four of s.split("/", -1), read from the end (the split was most of this method)
    Tail tail = Tail.of(s);
    String name = tail.name();
    if (name.isEmpty()) {
      // as SQS: a URL without an account and queue path names no queue
      throw SqsErrorText.QUEUE_DOES_NOT_EXIST.error();
    }
    Optional<String> urlRegion = host.isEmpty() ? Optional.empty() : keptHostRegion(host);
    String accountSegment = tail.account();
    if (accountSegment != null && isAccount(accountSegment)) {
      if (!accountSegment.equals(account.id())) {
        throw SqsErrorText.QUEUE_DOES_NOT_EXIST.error();
      }
      String regionSegment = tail.region();
      if (regionSegment != null && "queue".equals(tail.queueWord())) {
        urlRegion = Optional.of(regionSegment);
      }
    }
    if (urlRegion.isPresent() && !urlRegion.get().equals(region)) {
      throw SqsErrorText.QUEUE_DOES_NOT_EXIST.error();
    }
    return engineName(name).orElseThrow(() -> SqsErrorText.QUEUE_DOES_NOT_EXIST.error());
  }

  /**
   * The engine queue an SQS ARN names; none if it is of another account or region (SQS keeps
   * dead-letter queues and move tasks within one account and region).
   *
   * @throws SqsError {@code InvalidParameterValue} if it is not an SQS queue ARN
   */
  Optional<String> fromArn(String arn) {
    String[] parts = parseArn(arn);
    if (!parts[3].equals(region) || !parts[4].equals(account.id())) {
      return Optional.empty();
    }
    return engineName(parts[5]);
  }

  /** Checks the form of an SQS queue ARN ({@code arn:aws:sqs:<region>:<account>:<name>}). */
  static void checkArn(String arn) {
    parseArn(arn);
  }

  private static String[] parseArn(String arn) {
    String[] parts = arn.split(":", -1);
    if (parts.length != 6
        || !parts[0].equals("arn")
        || !parts[2].equals("sqs")
        || parts[5].isEmpty()) {
      throw SqsError.invalidParameter(
          "not an SQS queue ARN (arn:aws:sqs:<region>:<account>:<name>): '" + arn + "'");
    }
    return parts;
  }

  /**
   * The last four segments of a path's {@code split("/", -1)}, read from its end without the split:
   * the name (always there, perhaps empty), and before it what may be the account, the region and
   * the word {@code queue}; null where the path has fewer segments.
   */
  record Tail(
      String name, @Nullable String account, @Nullable String region, @Nullable String queueWord) {

    static Tail of(String path) {
      int slash = path.lastIndexOf('/');
      String name = path.substring(slash + 1);
      if (slash < 0) {
        return new Tail(name, null, null, null);
      }
      int end = slash;
      slash = path.lastIndexOf('/', end - 1);
      String account = path.substring(slash + 1, end);
      if (slash < 0) {
        return new Tail(name, account, null, null);
      }
      end = slash;
      slash = path.lastIndexOf('/', end - 1);
      String region = path.substring(slash + 1, end);
      if (slash < 0) {
        return new Tail(name, account, region, null);
      }
      end = slash;
      slash = path.lastIndexOf('/', end - 1);
      return new Tail(name, account, region, path.substring(slash + 1, end));
    }
  }

  /** An account id: twelve ASCII digits (checked without a regular expression per request). */
  private static boolean isAccount(String s) {
    if (s.length() != 12) {
      return false;
    }
    for (int i = 0; i < 12; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  /** The host and port of an absolute URL; empty for anything else. */
  private static String authority(String url) {
    int scheme = url.indexOf("://");
    if (scheme < 0) {
      return "";
    }
    int slash = url.indexOf('/', scheme + 3);
    return slash < 0 ? url.substring(scheme + 3) : url.substring(scheme + 3, slash);
  }
}
