-- wrk: log in over and over (argon2 verification on every request).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Accept"] = "application/json"
wrk.body = "email=bench%40example.com&password=correct+horse+battery+staple"
