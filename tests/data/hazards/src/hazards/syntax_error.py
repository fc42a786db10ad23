def half(x):
    return x /

