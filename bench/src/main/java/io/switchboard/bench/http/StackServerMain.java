package io.switchboard.bench.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.WebServerConfig;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.helidon.webserver.http1.Http1Config;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.switchboard.bench.sqs.SqsServerMain;
import io.switchboard.server.SwitchboardServer;
import io.switchboard.server.config.ServerConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The server side of {@link HttpStackBench}: {@code StackServerMain <stack>} serves {@code POST
 * /noop} and {@code POST /batch} ({@link StackWork}, the same handler code on every stack) on a
 * free loopback port, in the protocol of {@code ChildServer} (prints {@code LISTENING <port>},
 * answers {@code stats}, stops when its standard input closes). The stacks are {@link Stack}'s.
 */
public final class StackServerMain {

  /** The HTTP stacks compared; {@link #label} is the name on the command line and in the report. */
  enum Stack {
    /**
     * Switchboard's own server (in memory, no access keys): its {@code POST /v1/noop} through all
     * its filters, a reference for the no-op only.
     */
    SWITCHBOARD("switchboard"),
    /**
     * Helidon 4 WebServer as Switchboard builds it, less Switchboard's own listeners and routes.
     */
    HELIDON("helidon"),
    /** The same with every setting found that could take work off a request (see the javadoc). */
    HELIDON_TUNED("helidon-tuned"),
    /** {@link #HELIDON_TUNED} on blocking {@code java.net} sockets instead of NIO channels. */
    HELIDON_TUNED_SOCKETS("helidon-tuned-sockets"),
    /** Netty 4.2: HttpServerCodec + HttpObjectAggregator, epoll if available, 2 event loops. */
    NETTY("netty"),
    /** The JDK's {@code com.sun.net.httpserver}, a virtual thread per exchange. */
    JDK_VIRTUAL("jdk-virtual"),
    /** The JDK's {@code com.sun.net.httpserver}, a fixed pool of 2 × CPUs platform threads. */
    JDK_FIXED("jdk-fixed");

    final String label;

    Stack(String label) {
      this.label = label;
    }

    static Stack parse(String s) {
      for (Stack k : values()) {
        if (k.label.equals(s)) {
          return k;
        }
      }
      throw new IllegalArgumentException(
          "stacks are "
              + java.util.Arrays.stream(values()).map(k -> k.label).toList()
              + ", got "
              + s);
    }
  }

  private StackServerMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: StackServerMain <stack>");
      System.exit(2);
    }
    Stack stack = Stack.parse(args[0]);
    StackWork work = new StackWork();
    int[] port = new int[1];
    Runnable stop =
        switch (stack) {
          case SWITCHBOARD -> switchboard(port);
          case HELIDON -> helidon(work, false, true, port);
          case HELIDON_TUNED -> helidon(work, true, true, port);
          case HELIDON_TUNED_SOCKETS -> helidon(work, true, false, port);
          case NETTY -> netty(work, port);
          case JDK_VIRTUAL -> jdk(work, Executors.newVirtualThreadPerTaskExecutor(), port);
          case JDK_FIXED ->
              jdk(
                  work,
                  Executors.newFixedThreadPool(2 * Runtime.getRuntime().availableProcessors()),
                  port);
        };
    System.err.println("stack " + stack.label + " on port " + port[0]);
    SqsServerMain.serve(port[0], stop);
  }

  private static Runnable switchboard(int[] port) {
    SwitchboardServer server =
        SwitchboardServer.start(
            ServerConfig.resolve(
                Map.of("port", "0", "bind", "127.0.0.1", "in-memory", "true"), Map.of()));
    port[0] = server.uri().getPort();
    return server::stop;
  }

  /**
   * Helidon 4 WebServer. Untuned: the builder calls Switchboard's server makes that are not its own
   * features (backlog 8192, no shutdown hook), everything else Helidon's defaults. Tuned: no
   * service discovery of features, protocols (HTTP/1.1 only, configured here), concurrency limits,
   * media supports or content encodings (no gzip/deflate negotiation); HTTP/1 without the prologue,
   * path, host and header validation, without the send/receive logging listeners and without the
   * keep-alive header; TCP_NODELAY on accepted sockets; and {@code useNio} as given (Helidon's
   * default is NIO channels; false is blocking {@code java.net} sockets).
   */
  private static Runnable helidon(StackWork work, boolean tuned, boolean useNio, int[] port) {
    WebServerConfig.Builder b =
        WebServer.builder()
            .host("127.0.0.1")
            .port(0)
            .backlog(8192)
            .shutdownHook(false)
            .routing(r -> helidonRoutes(r, work));
    if (tuned) {
      b.featuresDiscoverServices(false)
          .protocolsDiscoverServices(false)
          .concurrencyLimitDiscoverServices(false)
          .mediaContext(m -> m.mediaSupportsDiscoverServices(false))
          .contentEncoding(c -> c.contentEncodingsDiscoverServices(false))
          .connectionOptions(s -> s.tcpNoDelay(true))
          .useNio(useNio)
          .addProtocol(
              Http1Config.builder()
                  .validatePrologue(false)
                  .validatePath(false)
                  .validateRequestHostHeader(false)
                  .validateRequestHeaders(false)
                  .validateResponseHeaders(false)
                  .receiveLog(false)
                  .sendLog(false)
                  .sendKeepAliveHeader(false)
                  .build());
    }
    WebServer server = b.build().start();
    port[0] = server.port();
    return server::stop;
  }

  private static void helidonRoutes(HttpRouting.Builder r, StackWork work) {
    r.post(
            StackWork.NOOP_PATH,
            (ServerRequest req, ServerResponse res) -> {
              work.noop(readAll(req.content().inputStream(), req.headers().contentLength()));
              res.status(Status.NO_CONTENT_204).send();
            })
        .post(
            StackWork.BATCH_PATH,
            (ServerRequest req, ServerResponse res) -> {
              byte[] answer;
              try {
                answer =
                    work.sendBatch(
                        readAll(req.content().inputStream(), req.headers().contentLength()));
              } catch (IllegalArgumentException e) {
                res.status(Status.BAD_REQUEST_400).send(e.getMessage());
                return;
              }
              res.header(HeaderValues.CONTENT_TYPE_JSON).send(answer);
            });
  }

  /**
   * Plain Netty 4.2: {@code HttpServerCodec} and {@code HttpObjectAggregator} (1 MiB) in front of a
   * handler that runs {@link StackWork} on the event loop; 2 event-loop threads, epoll if the
   * native transport loads (else NIO), TCP_NODELAY, pooled buffers (Netty's default).
   */
  private static Runnable netty(StackWork work, int[] port) throws InterruptedException {
    boolean epoll = Epoll.isAvailable();
    IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, io);
    EventLoopGroup workers = new MultiThreadIoEventLoopGroup(2, io);
    Class<? extends ServerChannel> channel =
        epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    Channel server =
        new ServerBootstrap()
            .group(boss, workers)
            .channel(channel)
            .option(ChannelOption.SO_BACKLOG, 8192)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline()
                        .addLast(new HttpServerCodec())
                        .addLast(new HttpObjectAggregator(1 << 20))
                        .addLast(new NettyHandler(work));
                  }
                })
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .sync()
            .channel();
    port[0] = ((InetSocketAddress) server.localAddress()).getPort();
    System.err.println("netty transport: " + (epoll ? "epoll" : "nio"));
    return () -> {
      server.close().syncUninterruptibly();
      boss.shutdownGracefully().syncUninterruptibly();
      workers.shutdownGracefully().syncUninterruptibly();
    };
  }

  /** Netty's handler of both routes (a full request at a time, from the aggregator). */
  private static final class NettyHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private final StackWork work;

    NettyHandler(StackWork work) {
      this.work = work;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
      byte[] body = ByteBufUtil.getBytes(req.content());
      FullHttpResponse res;
      String path = req.uri();
      if (path.equals(StackWork.NOOP_PATH)) {
        work.noop(body);
        res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NO_CONTENT);
      } else if (path.equals(StackWork.BATCH_PATH)) {
        try {
          res =
              new DefaultFullHttpResponse(
                  HttpVersion.HTTP_1_1,
                  HttpResponseStatus.OK,
                  Unpooled.wrappedBuffer(work.sendBatch(body)));
          res.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        } catch (IllegalArgumentException e) {
          res =
              new DefaultFullHttpResponse(
                  HttpVersion.HTTP_1_1,
                  HttpResponseStatus.BAD_REQUEST,
                  Unpooled.copiedBuffer(String.valueOf(e.getMessage()), StandardCharsets.UTF_8));
        }
      } else {
        res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NOT_FOUND);
      }
      HttpUtil.setContentLength(res, res.content().readableBytes());
      boolean keepAlive = HttpUtil.isKeepAlive(req);
      if (keepAlive) {
        ctx.writeAndFlush(res);
      } else {
        ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  /** The JDK's server on {@code executor}; backlog 8192. */
  private static Runnable jdk(StackWork work, ExecutorService executor, int[] port)
      throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 8192);
    server.createContext(
        StackWork.NOOP_PATH,
        exchange -> {
          try (exchange) {
            work.noop(readAll(exchange.getRequestBody(), contentLength(exchange)));
            exchange.sendResponseHeaders(204, -1);
          }
        });
    server.createContext(
        StackWork.BATCH_PATH,
        exchange -> {
          try (exchange) {
            byte[] answer;
            try {
              answer = work.sendBatch(readAll(exchange.getRequestBody(), contentLength(exchange)));
            } catch (IllegalArgumentException e) {
              send(exchange, 400, String.valueOf(e.getMessage()).getBytes(StandardCharsets.UTF_8));
              return;
            }
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            send(exchange, 200, answer);
          }
        });
    server.setExecutor(executor);
    server.start();
    port[0] = server.getAddress().getPort();
    return () -> {
      server.stop(0);
      executor.shutdownNow();
    };
  }

  private static void send(HttpExchange exchange, int status, byte[] body) throws IOException {
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  /**
   * The body: exactly its Content-Length when there is one (as Netty's aggregator allocates it;
   * {@code readAllBytes} would allocate a 16 KiB buffer per request, a cost of the idiom, not of
   * the stack), else all of it.
   */
  private static byte[] readAll(InputStream in, OptionalLong length) {
    try (in) {
      return length.isPresent() && length.getAsLong() <= Integer.MAX_VALUE
          ? in.readNBytes((int) length.getAsLong())
          : in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static OptionalLong contentLength(HttpExchange exchange) {
    String v = exchange.getRequestHeaders().getFirst("Content-Length");
    try {
      return v == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(v.trim()));
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }
}
