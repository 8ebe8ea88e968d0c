package io.switchboard.bench.filter;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.activemq.artemis.api.core.QueueConfiguration;
import org.apache.activemq.artemis.api.core.RoutingType;
import org.apache.activemq.artemis.api.core.TransportConfiguration;
import org.apache.activemq.artemis.api.core.client.ActiveMQClient;
import org.apache.activemq.artemis.api.core.client.ClientConsumer;
import org.apache.activemq.artemis.api.core.client.ClientMessage;
import org.apache.activemq.artemis.api.core.client.ClientProducer;
import org.apache.activemq.artemis.api.core.client.ClientSession;
import org.apache.activemq.artemis.api.core.client.ClientSessionFactory;
import org.apache.activemq.artemis.api.core.client.ServerLocator;
import org.apache.activemq.artemis.core.config.Configuration;
import org.apache.activemq.artemis.core.config.impl.ConfigurationImpl;
import org.apache.activemq.artemis.core.remoting.impl.invm.InVMAcceptorFactory;
import org.apache.activemq.artemis.core.remoting.impl.invm.InVMConnector;
import org.apache.activemq.artemis.core.remoting.impl.invm.InVMConnectorFactory;
import org.apache.activemq.artemis.core.server.ActiveMQServer;
import org.apache.activemq.artemis.core.server.ActiveMQServers;
import org.apache.activemq.artemis.core.server.Queue;
import org.apache.activemq.artemis.core.settings.impl.AddressFullMessagePolicy;
import org.apache.activemq.artemis.core.settings.impl.AddressSettings;
import org.jspecify.annotations.Nullable;

/**
 * Embedded ActiveMQ Artemis, in-VM acceptor and core client, persistence off, no paging (unbounded
 * address, no global limit, and FAIL instead of PAGE should a limit ever be hit). The consumer has
 * a window of 0 (no prefetch: each receive asks the server for one message) and acknowledgements
 * are sent at once and block until the server has them, so a receive plus ack is one real round
 * trip each, as in Switchboard.
 *
 * <p>{@link Mode#PER_RECEIVE} opens a consumer with the selector for every receive and closes it
 * after the ack: the analogue of Switchboard's stateless {@code receive(max 1, selector)}. {@link
 * Mode#LONG_LIVED} keeps one filtered consumer open across receives, the usual JMS idiom.
 */
final class ArtemisTarget implements Target {

  enum Mode {
    PER_RECEIVE,
    LONG_LIVED
  }

  static final String QUEUE = "filtered";
  private static final long RECEIVE_TIMEOUT_MS = TimeUnit.MINUTES.toMillis(5);

  private final Mode mode;
  private final Path dataDir;
  private final ActiveMQServer server;
  private final ServerLocator fillLocator;
  private final ServerLocator locator;
  private final ClientSessionFactory fillFactory;
  private final ClientSessionFactory factory;
  private final ClientSession session;
  private final ClientProducer producer;
  private @Nullable ClientConsumer consumer;
  private int sent;

  ArtemisTarget(Mode mode) throws Exception {
    this.mode = mode;
    dataDir = Files.createTempDirectory("artemis-filterbench");
    Configuration config =
        new ConfigurationImpl()
            .setPersistenceEnabled(false)
            .setSecurityEnabled(false)
            .setJMXManagementEnabled(false)
            .setGlobalMaxSize(-1)
            .setMaxDiskUsage(-1)
            .setJournalDirectory(dataDir.resolve("journal").toString())
            .setBindingsDirectory(dataDir.resolve("bindings").toString())
            .setPagingDirectory(dataDir.resolve("paging").toString())
            .setLargeMessagesDirectory(dataDir.resolve("large").toString())
            .addAcceptorConfiguration(
                new TransportConfiguration(InVMAcceptorFactory.class.getName()))
            .addAddressSetting(
                "#",
                new AddressSettings()
                    .setMaxSizeBytes(-1)
                    .setMaxSizeMessages(-1)
                    .setAddressFullMessagePolicy(AddressFullMessagePolicy.FAIL));
    server = ActiveMQServers.newActiveMQServer(config, false);
    server.start();
    server.createQueue(
        QueueConfiguration.of(QUEUE)
            .setAddress(QUEUE)
            .setRoutingType(RoutingType.ANYCAST)
            .setDurable(false));

    TransportConfiguration inVm = new TransportConfiguration(InVMConnectorFactory.class.getName());
    fillLocator =
        ActiveMQClient.createServerLocatorWithoutHA(inVm)
            .setBlockOnNonDurableSend(false)
            .setConfirmationWindowSize(-1);
    fillFactory = fillLocator.createSessionFactory();
    locator =
        ActiveMQClient.createServerLocatorWithoutHA(inVm)
            .setConsumerWindowSize(0)
            .setAckBatchSize(0)
            .setBlockOnAcknowledge(true)
            .setBlockOnNonDurableSend(true);
    factory = locator.createSessionFactory();
    session = factory.createSession(false, true, true);
    producer = session.createProducer(QUEUE);
    session.start();
  }

  @Override
  public String name() {
    return mode == Mode.PER_RECEIVE ? "artemis" : "artemis-long-lived";
  }

  private ClientMessage message(ClientSession s, Workload.Msg m) {
    ClientMessage msg = s.createMessage(false);
    msg.getBodyBuffer().writeBytes(Workload.body(sent++).getBytes(StandardCharsets.US_ASCII));
    msg.putStringProperty("language", m.language());
    msg.putStringProperty("gender", m.gender());
    msg.putIntProperty("tier", m.tier());
    for (String skill : m.skills()) {
      msg.putBooleanProperty("skill_" + skill, true);
    }
    return msg;
  }

  @Override
  public void fill(List<Workload.Msg> messages) throws Exception {
    long before = depth();
    try (ClientSession s = fillFactory.createSession(false, true, true);
        ClientProducer p = s.createProducer(QUEUE)) {
      for (Workload.Msg m : messages) {
        p.send(message(s, m));
      }
    }
    long want = before + messages.size();
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    while (depth() < want) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("artemis: fill stalled at " + depth() + " of " + want);
      }
      Thread.sleep(10);
    }
    if (server
        .getPagingManager()
        .getPageStore(org.apache.activemq.artemis.api.core.SimpleString.of(QUEUE))
        .isPaging()) {
      throw new IllegalStateException(
          "artemis: the address pages; the comparison assumes memory only");
    }
  }

  @Override
  public long receiveAndAckNanos() throws Exception {
    long start = System.nanoTime();
    ClientConsumer c = consumer;
    if (c == null) {
      c = session.createConsumer(QUEUE, Workload.ARTEMIS_SELECTOR);
    }
    ClientMessage m = c.receive(RECEIVE_TIMEOUT_MS);
    if (m == null) {
      throw new IllegalStateException("artemis: no message matched " + Workload.ARTEMIS_SELECTOR);
    }
    m.acknowledge();
    if (mode == Mode.PER_RECEIVE) {
      c.close();
    } else {
      consumer = c;
    }
    return System.nanoTime() - start;
  }

  @Override
  public void send(Workload.Msg message) throws Exception {
    producer.send(message(session, message));
  }

  @Override
  public long depth() throws Exception {
    Queue q = server.locateQueue(QUEUE);
    return q.getMessageCount();
  }

  @Override
  public void close() throws Exception {
    if (consumer != null) {
      consumer.close();
    }
    session.close();
    factory.close();
    locator.close();
    fillFactory.close();
    fillLocator.close();
    server.stop();
    // Their idle non-daemon threads would otherwise keep the JVM alive for a minute.
    InVMConnector.resetThreadPool();
    ActiveMQClient.clearThreadPools();
    try (Stream<Path> files = Files.walk(dataDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
