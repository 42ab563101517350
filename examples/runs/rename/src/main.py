def hello(name):
    print('hi', name)

hello('world')
